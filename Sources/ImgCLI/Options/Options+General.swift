import ImgCore

extension OptionCatalog {
    static let general = OptionGroup(title: "General", options: [
        Options.help,
        Options.version,
        // `imgfetch --generate man-options|complete-bash|complete-zsh|complete-fish` prints what the build
        // generates from these declarations (ripgrep's --generate); `make man` uses it.
        Options.generate,
    ])
}

extension Options {
    static let help = Flag("help", short: "h", for: .every, help: "print help (help COMMAND: one command's) and exit",
                         man: #"""
            Print help and exit 0;
            .B imgfetch help
            .I COMMAND
            prints the help of one command, and an unknown
            .I COMMAND
            is a usage error (exit 2).
            An unknown option is a usage error that names the nearest known one, and an option given to a command it
            does not apply to is a usage error that names both (exit 2, before anything is fetched or written).
            """#)
    static let version = Flag("version", for: .every, help: "print imgfetch's and its libraries' versions",
                         man: #"""
            Print
            .B imgfetch
            and its version, then the versions of the libvips, libcurl (with its TLS library) and libxxhash it runs
            with, one line each
            .RB ( "libcurl 7.88.1 (OpenSSL/3.0.17)" ),
            and exit 0; with
            .B \-\-json
            one object with the keys
            .BR imgfetch ,
            .BR libvips ,
            .BR libcurl ,
            .B tls
            and
            .BR libxxhash .
            A library that cannot be opened is said to be unavailable, with the reason (in
            .B unavailable
            with
            .BR \-\-json ).
            Any other word or option beside it (but
            .BR \-\-json )
            is a usage error (exit 2).
            """#)
    static let generate = Option<String>("generate", value: "KIND", parser: .text, for: .every, hidden: true, help: "print generated text", man: "")
}
