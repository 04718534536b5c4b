extension OptionCatalog {
    static let optOut = OptionGroup(title: "Filters", options: [
        OptionDefinition("min-size", value: "WxH", for: [.batch], help: "write no original smaller than WxH",
                         man: #"""
            Write nothing for a line whose original is narrower than
            .I W
            or lower than
            .I H
            pixels: it is recorded with status
            .B filtered
            and a
            .B reason
            .RI ( "original 50x40 is smaller than 64x64" ),
            counted apart from
            .BR ok " and " failed ,
            and does not change the exit status.
            The original is fetched (and cached) to learn its size; an original whose size is not known passes.
            Default: none.
            """#),
        OptionDefinition("max-aspect-ratio", value: "R", for: [.batch], help: "write no original longer than R times its width",
                         man: #"""
            Write nothing for a line whose original's longer side is over
            .I R
            times its shorter (a number of at least 1: 2 lets 200x100 and 100x200 through, not 201x100);
            it is
            .B filtered
            as for
            .BR \-\-min\-size .
            Default: none.
            """#),
    ])
}
