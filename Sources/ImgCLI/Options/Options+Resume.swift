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
            .BR tar_id ;
            for
            .BR prefetch ,
            whose outputs are cache entries, the entry is in this run's cache, unexpired and whole);
            with
            .BR \-\-verify\-outputs ,
            also of the recorded
            .BR sha256 .
            Every other line runs: failed, filtered, opted out, disallowed by robots.txt, not done (recorded only as
            .BR skipped ,
            or not reached), or recorded
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
            .BR "\-\-output\-format webdataset" ,
            a line whose sample is in a complete tar is never written again, since a tar's sample is not replaced
            and a second one would give the line twice: recorded
            .B ok
            but made otherwise (other options, another URL on its line), it is carried as done earlier, the summary
            saying so
            .RB ( "2 done earlier (2 kept in their tars, whose samples are not replaced: 2 made with other options)" ;
            the same with
            .B \-\-retry\-failed
            for another URL) and its carried record's reason
            .BR "done earlier, kept in its tar: made with other options" ;
            to make such samples again, write into another folder.
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
            A line's record is its last one other than
            .B skipped
            (a
            .B skipped
            record, of a run that was stopping, never replaces an earlier one), as for
            .BR \-\-retry\-failed .
            .I FILE
            is read as a stream: what is kept for each line is where that record
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
    static let retryFailed = Option<String>("retry-failed", value: "FILE", parser: .path, for: .batchLike, help: "run only the lines FILE records as failed or not done",
                         man: #"""
            Run only the lines the manifest
            .I FILE
            does not record as done: those it records as
            .BR failed ,
            those it records as
            .B robots_disallowed
            with
            .B exit_class
            .B transient
            (their robots.txt could not be fetched, for now: see
            .BR \-\-robots\-txt ),
            and those it has no result for (not reached by a run that was stopped, recorded only as
            .BR skipped ,
            or recorded for another URL: the list changed).
            A line's result is its last record other than
            .BR skipped :
            a
            .B skipped
            record (started and not finished: a run was stopping) never replaces an earlier
            .BR ok ,
            .BR failed ,
            .BR filtered ,
            .B opted_out
            or
            .B robots_disallowed
            one, so the failures of a retry that was interrupted are still there for the next.
            The lines recorded as done
            .RB ( ok ,
            .BR filtered ,
            .BR opted_out ,
            .B robots_disallowed
            without
            .BR "exit_class transient" :
            by a rule, or by a robots.txt that could not be fetched for a reason that does not pass, as a TLS
            failure)
            are not fetched: they are carried into
            .B \-\-manifest
            as they were (their status and reason;
            .B ok
            with reason
            .BR "done earlier" ),
            and the summary counts them as done earlier.
            Unlike
            .BR \-\-resume ,
            the outputs of the lines recorded
            .B ok
            are not looked at, and the lines filtered, opted out or so disallowed are not run again.
            But a line recorded
            .B ok
            whose outputs this run would name otherwise (lines above it or the naming options changed, so that
            another line could take a recorded name and write over its file) runs again, with reason
            .B "done again: recorded at another path"
            (or
            .BR "other variant names" ).
            Exit status 0 means every line of the list (of this shard) is done: none failed and none was left not
            done, so a loop that retries until the exit status is 0 ends only with every line done.
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
