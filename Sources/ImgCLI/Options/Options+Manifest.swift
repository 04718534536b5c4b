import ImgCore

/// `--manifest FILE`: the record of every list line a batch writes, and the fields of its records.
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
            (its number in the list, counting blank and comment lines; numbered on through several lists, and for
            .B prefetch
            through the URLs given on the command line and then the
            .B \-\-from
            list: then it is unique in the run, and the record of a list's line also has its
            .B list
            and its
            .B list_line
            there, see
            .B batch
            and
            .BR \-\-from ),
            .B url
            (as given, a password shown as
            .BR *** ,
            bytes that are not UTF-8 as
            .BI % XX
            escapes: see
            .BR batch ;
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
            .BR "EXIT STATUS" ;
            also
            .B transient
            on a
            .B robots_disallowed
            line whose robots.txt could not be fetched for now, which is not done: see
            .BR \-\-robots\-txt ),
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
            (the variant key it was asked under, which
            .B \-\-resume
            compares; for
            .B prefetch
            the original key),
            .B cache_key
            when the cache keeps the output (when it keeps it) under another key, the one
            .B \-v
            and
            .B cache inspect
            show (an output whose format follows the original's is asked as
            .B @source(...)
            and kept as the format made, e.g.
            .BR @jpeg(q=85,bg=#ffffff) ),
            and
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
            .B ms
            (the milliseconds the line took in this run: a filtered, opted-out or disallowed line's too, its download
            or its robots.txt),
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
            .B skipped
            (lines started and not finished),
            .B not_reached
            (lines a stopped run never started, when it read the whole list before it stopped and there were
            some),
            .B done_earlier
            (lines the
            .B \-\-resume
            or
            .B \-\-retry\-failed
            manifest settles),
            .BR filtered ", " opted_out ", " robots_disallowed " and " robots_disallowed_transient
            (when some line was; the last counts the lines of
            .B robots_disallowed
            whose robots.txt could not be fetched for now),
            .B redone
            (with
            .B \-\-resume
            or
            .BR \-\-retry\-failed :
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
            and ends with the summary; lines it never started (read ahead or not) have no record.
            Its summary on stderr counts the lines started and not finished as
            .B not done
            and, when the whole list had been read, the lines never started as
            .BR "not reached" .
            .I FILE
            is replaced, unless it is also the
            .B \-\-resume
            or
            .B \-\-retry\-failed
            file: then the new records are appended to it, and for each line the last
            record counts, but a
            .B skipped
            one never replaces an earlier record of a result (see
            .BR \-\-retry\-failed ),
            except one with
            .B withdraws_ok
            (true): a line counted in a WebDataset tar that could not be written (its
            sample, or its status in the tar's stats) is recorded again so, and its record of that run
            .RB ( ok ,
            or
            .BR failed ,
            .B filtered
            and the like) no longer counts.
            """#)
}
