import ImgCore

extension OptionCatalog {
    static let records = OptionGroup(title: "Manifest and resume", options: [
        Options.manifest,
        Options.resume,
        Options.retryFailed,
        Options.verifyOutputs,
    ])
}

extension Options {
    static let manifest = Option<String>("manifest", value: "FILE", parser: .path, for: .batchLike, help: "write a JSON line per list line to FILE",
                         man: #"""
            Write one JSON line per list line of this run (of this shard) to
            .IR FILE ,
            in list order, each with one
            .BR write (2)
            as soon as the line is done, so that a run killed with
            .B kill \-9
            leaves every record before the kill whole (and at most a torn last line).
            A new manifest is made as a temporary in
            .IR FILE 's
            folder and renamed over
            .I FILE
            before the first line runs, so a symbolic link planted there is replaced, never written through;
            a manifest appended to (the one given to
            .BR \-\-resume )
            must be a regular file, not a link (exit 7);
            a
            .I FILE
            that is one of the lists read is a usage error, as it would replace the list, and so is
            .B \-
            (for
            .BR \-\-resume " and " \-\-retry\-failed
            too): records on standard output are
            .BR \-\-json 's.
            .B {shard}
            in
            .I FILE
            becomes
            .IB K \-of\- N
            with
            .B \-\-shard
            .RB ( 0\-of\-1
            without), so that the tasks of an array write one manifest each.
            A record has
            .B line
            (its number in the list, counting blank and comment lines),
            .B url
            (as given, a password shown as
            .BR *** ;
            for a line with more columns than
            .I URL
            .RI [ NAME ]
            .B raw
            instead, the whole line so masked: it fails as
            .RI "line " N ": expected 'URL [NAME]', found more columns" ),
            .B status
            .RB ( ok ", " failed ", " skipped ,
            .B filtered
            (see
            .BR \-\-min\-size )
            or
            .B opted_out
            (see
            .BR \-\-disallow\-robots\-tags ,
            with the
            .BR directive )
            or
            .B robots_disallowed
            (see
            .BR \-\-robots\-txt ,
            with the
            .BR rule )),
            for a failure
            .B error
            .RB ( class ,
            .B status
            for HTTP,
            .B message
            (the failure as stderr words it, a limit naming the option that set it),
            .BR exit )
            and
            .B exit_class
            .RB ( transient " or " permanent ;
            see
            .BR "EXIT STATUS" ),
            .B outputs
            (one per variant:
            .BR variant ,
            .B path
            (with
            .BR "\-\-output\-format webdataset" :
            .B tar
            (the tar the sample went into),
            .B tar_id
            (the id in its stats) and
            .B member
            (the image's name in it) instead),
            .BR format ,
            .BR width ,
            .BR height ,
            .BR bytes ,
            .B sha256
            of the output,
            .B key
            (the variant key it was asked under, as
            .B \-v
            shows it; for
            .B prefetch
            the original key) and
            .BR source :
            .BR network ,
            .BR memory ,
            .BR disk ,
            .BR disk\-original ,
            .BR revalidated " or " local ;
            with
            .BR \-\-facts ,
            .BR phash ;
            with
            .B \-\-quality auto
            or
            .BR "\-\-format auto" ,
            .B quality
            and
            .B distance
            (the quality chosen and the Butteraugli distance measured at it);
            for a near-duplicate,
            .B duplicate_of
            (the earlier line's URL) and, with
            .BR \-\-skip\-duplicates ,
            no
            .BR path ),
            .B original
            .RB ( width ,
            .BR height ,
            when known: not for a variant read from the disk cache),
            .B columns
            (the row's columns named by
            .BR \-\-keep\-columns ),
            .BR ms ,
            and
            .B reason
            for a line skipped, filtered, opted out, disallowed by robots.txt, done earlier, or done again by
            .B \-\-resume
            .RB ( "done again: output size differs" ).
            The last line is a summary:
            .BR summary ,
            .B status
            .RB ( ok ", " error " or " interrupted ),
            .BR ok ,
            .BR failed ,
            .BR failed_transient ,
            .BR skipped ,
            .BR done_earlier ,
            .BR filtered ", " opted_out " and " robots_disallowed
            (when some line was),
            .B redone
            (with
            .BR \-\-resume :
            lines recorded
            .B ok
            that were done again, counted in
            .B ok
            or
            .B failed
            too),
            .BR written ,
            .B exit
            (the run's exit status),
            .BR signal ,
            .BR shard ,
            .BR ms .
            A run stopped by SIGINT or SIGTERM still records the lines it finished (those
            it had started and not finished as
            .BR skipped )
            and ends with the summary; lines it never reached have no record.
            .I FILE
            is replaced, unless it is also the
            .B \-\-resume
            or
            .B \-\-retry\-failed
            file: then the new records are appended to it, and for each line the last
            record counts.
            """#)
    static let resume = Option<String>("resume", value: "FILE", parser: .path, for: .batchLike, help: "skip the lines FILE records as ok",
                         man: #"""
            Read the manifest
            .I FILE
            of an earlier run of this list (after
            .B {shard}
            expansion, as for
            .BR \-\-manifest )
            and skip every line it records as
            .B ok
            whose outputs are still what this run would make: no request is made for
            them and their outputs are not touched.
            A line is skipped only when its record has the URL on that line, the same
            .B \-\-variant
            names, and for each output the
            .B key
            this run would ask (the same processing and encoding options) and the
            .B path
            this run would write (under this
            .BR \-O ,
            by this run's names), and that file, looked up in the output folder (never
            through the recorded path, nor a link), is a regular file of the recorded
            .B bytes
            (with
            .BR "\-\-output\-format webdataset" ,
            the recorded
            .B tar
            is complete in this
            .B \-O
            and its stats have the recorded
            .BR tar_id );
            with
            .BR \-\-verify\-outputs ,
            also of the recorded
            .BR sha256 .
            Every other line runs: failed, skipped, not reached, or recorded
            .B ok
            but not so (an output removed, truncated or changed, other options,
            another
            .BR \-O ,
            a record of an older imgfetch without a
            .BR key ):
            those are done again, and
            .B \-v
            says why for each
            .RI ( URL ": recorded ok in the \-\-resume manifest, done again: output size differs" ),
            the summary how many and why
            .RB ( "2 done again (1 made with other options, 1 output size differs)" ),
            the manifest's summary has
            .BR redone ,
            and the line's new record the reason.
            With
            .BR \-\-facts ,
            a line recorded without a
            .B phash
            runs too, and the lines skipped still count as earlier lines for
            .BR \-\-duplicate\-distance ;
            a near-duplicate recorded with no
            .B path
            is there only with
            .BR \-\-skip\-duplicates .
            Lines that do not parse (the torn last line of a run killed with
            .BR "kill \-9" )
            are ignored.
            .I FILE
            is read as a stream: what is kept for each line is where its last record
            is in the file, which is read again when the line comes up.
            A
            .I FILE
            that does not exist yet records nothing, so that one job script serves the
            first run and every retry.
            With
            .BR \-\-manifest ,
            the lines skipped are recorded as
            .B ok
            with reason
            .B done earlier
            (unless the manifest is
            .I FILE
            itself, which has them already).
            """#)
    static let retryFailed = Option<String>("retry-failed", value: "FILE", parser: .path, for: .batchLike, help: "run only the lines FILE records as failed",
                         man: #"""
            Run only the lines the manifest
            .I FILE
            records as
            .BR failed ;
            the others are carried into
            .B \-\-manifest
            as they were
            .RB ( ok ,
            .BR "done earlier" ),
            or as
            .B skipped
            when
            .I FILE
            has no failure for them.
            .I FILE
            must exist (exit 2 otherwise).
            """#)
    static let verifyOutputs = Flag("verify-outputs", for: [.batch], help: "with --resume, also compare each output's SHA-256",
                         man: #"""
            With
            .BR \-\-resume ,
            skip a line only when each of its output files also has the SHA-256 its
            record gives
            .RB ( sha256 ),
            not only its size: every output recorded is read whole (by the workers, at
            once with the lines that run).
            A line whose file differs is done again (see
            .BR \-\-resume ).
            Without
            .B \-\-resume
            it is a usage error (exit 2).
            """#)
}
