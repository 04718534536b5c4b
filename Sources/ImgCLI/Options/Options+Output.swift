import ImgCore

extension OptionCatalog {
    static let output = OptionGroup(title: "Output", options: [
        Options.output,
        Options.outputDir,
    ], manOutro: #"""
        Without
        .B \-o
        or
        .BR \-O ,
        the image goes to standard output, unless standard output is a terminal:
        then imgfetch refuses with exit 2
        .RB ( "refusing to write an image to a terminal; use \-o FILE or \-O DIR" ).
        .PP
        A fetch that asks for no change (no processing option, no
        .BR \-\-format ,
        .BR \-\-quality ,
        .BR \-\-lossless ,
        .BR \-\-background ,
        .BR \-\-keep\-metadata ,
        .B \-\-first\-frame
        or
        .BR \-\-max\-frames ,
        and an output in the source's own format) writes the source's bytes
        unchanged, as
        .B curl \-o
        does: such a download keeps the source's metadata (EXIF, XMP, the colour
        profile, the orientation tag), which is stripped whenever the image is
        re-encoded.
        The width and height that
        .BR \-\-json ,
        the manifest and a sample's
        .IB KEY .json
        give for it are the size displayed, its orientation applied, as for every
        other output
        .RB ( info
        gives the size as stored and the tag).
        The image is still read whole once, so a truncated or refused one fails as
        it would otherwise;
        .B \-v
        says
        .BR unchanged .
        """#)
}

extension Options {
    static let output = Option<String>("output", short: "o", value: "FILE", parser: .text, for: [.fetch],
                         help: "write the result to FILE (- for stdout)",
                         man: #"""
            Write the result to
            .IR FILE ;
            .B \-
            is standard output.
            A regular file appears whole or not at all: it is written to a temporary
            file in the same directory and renamed into place, keeping the permissions
            (and, for root, the owner) of the file it replaces; a hard link to the old
            file keeps the old contents.
            A symbolic link is followed: its target is replaced, the link stays.
            Anything else that is there (a device such as
            .BR /dev/null ,
            a FIFO, a terminal,
            .B /dev/stdout
            or
            .BR /proc/self/fd/ \fIN\fR)
            is opened and written in place; a FIFO is waited for until a reader opens it.
            An empty name, a directory, a missing directory, a dangling link or a
            directory that can't be written to is refused before anything is fetched
            (exit 2 for the first two, else 7).
            For one input only, except that several inputs may all go to
            .B \-
            (one image after another).
            """#)
    static let outputDir = Option<String>("output-dir", short: "O", value: "DIR", parser: .text, for: [.fetch, .batch],
                         help: "write results into DIR, named from the inputs",
                         man: #"""
            Write results into
            .IR DIR ,
            created if missing and checked to be writable before anything is fetched,
            with names derived from the inputs (see
            .BR "OUTPUT NAMES" ).
            Files left there by an earlier run are overwritten.
            .B \-O \-
            is a usage error (exit 2):
            .B \-
            means standard output for
            .BR \-o ;
            a folder of that name is
            .BR ./\- .
            .I DIR
            is opened once and every name is resolved in it: an output is made whole
            under a temporary and then renamed to its name, so whatever another user
            planted at that name (a symbolic link, a FIFO, a device) is replaced, never
            written through or opened.
            A
            .I DIR
            that is itself a symbolic link (its last component) is refused with exit 7;
            give the directory it points to.
            (This is for names imgfetch makes up;
            .B \-o
            .I FILE
            names its file and follows a link, as above.)
            .IP
            Temporaries, in
            .I DIR
            and beside an
            .B \-o
            file, are unnamed files
            .RB ( O_TMPFILE )
            where the file system has them, so a process killed at any moment
            .RB ( "kill \-9" ,
            the OOM killer) leaves nothing half-written: at most, killed in the moment between naming the finished
            file and putting it in place of an existing one, a whole hidden
            .BI .imgfetch\- PID \- NONCE .part
            file, removed as below.
            Elsewhere they are hidden
            .BI .imgfetch\- PID \- NONCE .part
            files, and the next imgfetch that writes into that directory removes those
            whose process no longer exists.
            """#)
}
