import ImgCore

/// `batch --output-format`: loose files, or WebDataset tar shards.
enum BatchOutputFormat: Sendable, Equatable {
    case files
    case webDataset
}

extension OptionCatalog {
    static let dataset = OptionGroup(title: "WebDataset output", options: [
        Options.outputFormat,
        Options.samplesPerShard,
        Options.captionColumn,
        Options.parquet,
    ])
}

extension Options {
    static let outputFormat = Option<BatchOutputFormat>("output-format", value: "files|webdataset",
                         parser: .choice(["files": .files, "webdataset": .webDataset]), default: .files, for: [.batch],
                         help: "write files, or WebDataset tar shards, under -O",
                         man: #"""
            What
            .B \-O
            .I DIR
            receives:
            .B files
            (one file an output, named as
            .B "OUTPUT NAMES"
            says) or
            .BR webdataset :
            tar shards
            .BR 00000.tar ,
            .BR 00001.tar ,
            \&.\|.\|. of up to
            .B \-\-samples\-per\-shard
            samples each, as img2dataset and the Python
            .B webdataset
            package lay them out.
            A sample is
            .IB KEY . EXT
            (the image written) and
            .IB KEY .json
            (its
            .BR url ,
            the
            .B \-\-keep\-columns
            by name,
            .BR width ,
            .BR height ,
            .BR original_width ,
            .BR original_height ,
            .BR bytes ,
            the
            .B sha256
            of the image,
            .BR key ,
            .BR format ,
            and with
            .B \-\-facts
            .BR blurhash ,
            .BR thumbhash ,
            .BR dominant_color " and " phash ),
            and with
            .B \-\-caption\-column
            .IB KEY .txt ;
            .I KEY
            is the line's number in the list (the manifest's
            .BR line ),
            zero-padded to 9 digits, so it is the same in every run and every shard
            (a plain list's second column, a file name elsewhere, is not used: it names no sample and picks no
            format).
            Only
            .B ok
            lines are samples, each one, but for a near-duplicate not written with
            .B \-\-skip\-duplicates
            (its manifest record
            .B ok
            with its output
            .BR "skipped: duplicate" ,
            its stats and table status
            .BR duplicate );
            a tar holds them in list order.
            With
            .BR \-\-shard ,
            the names carry the shard
            .RB ( s0003\-00000.tar
            for shard 3), so the tasks of an array can share one folder.
            .IP
            Each tar is written (with libarchive: ustar, read by GNU tar, Python's
            .B tarfile
            and
            .BR webdataset )
            under a temporary name in the folder and takes its name only when complete, with
            .IB NAME _stats.json
            written beside it first: its
            .B id
            (random, 16 hex digits),
            .BR samples ,
            the lines retired while it was written counted by
            .BR statuses ,
            its
            .BR bytes ,
            the images'
            .BR image_bytes ,
            and the
            .B seconds
            spent on it (from the batch's start for the first tar, else from the completion of the tar before).
            A line done that gives no sample (failed, filtered, opted out, disallowed, a skipped duplicate) is
            counted in the open tar, or opens one; the last tar of a run (also one stopped by a signal) is completed
            with what it has, even no sample, so that the stats files count every line done.
            Lines not done (a run stopping) open no tar. A run killed with
            .B "kill \-9"
            leaves only the temporary, which the next run removes. A tar that can't be written whole (a full
            disk: the batch stops with exit 7, as for files) is removed, each such tar is named on stderr, and the
            samples it had are not kept: their lines are recorded again in the manifest as
            .B skipped
            (not done; a line's last record counts) and counted as not done in the summary, so that its counts
            say what is on disk, and
            .B \-\-resume
            does them again. Once a tar fails no line starts, and the lines retired after it are not done. The
            manifest records each sample's
            .BR tar ,
            .B tar_id
            and
            .BR member .
            .B \-\-resume
            keeps a line recorded
            .B ok
            only when its tar is complete and is still the one it went into (the stats'
            .B id
            is the recorded one), so the samples of a torn tar are done again; new tars are numbered after
            the complete ones, which are never replaced (a tar, its table and stats take their names only where
            nothing has them: should a file appear at one meanwhile, the tar is given up as above), and across
            all tars every
            .B ok
            line is one sample.
            A run holds an exclusive lock on its tar names in the folder while it runs: the file
            .B .imgfetch\-tars.lock
            there
            .RB ( .imgfetch\-s0003\-tars.lock
            for shard 3's tars), removed as the run ends (a killed run leaves it unlocked, and the next run takes
            it). A second run that would write tars of the same names into the folder at once is refused (exit 2)
            before it fetches anything or opens its manifest; the tasks of different shards share a folder at once.
            .B \-\-retry\-failed
            writes the lines it retries into new tars too.
            A folder that already holds this shard's tars is refused (exit 2) without
            .B \-\-resume
            or
            .BR \-\-retry\-failed ,
            and with a manifest that does not record the samples of one of them (by the
            .B id
            in its stats: the manifest of another run, or none yet), whose lines the run would write again.
            So is a folder holding tars of another shard layout, without
            .B \-\-shard
            when the run has one, with one when it has none, or of another count (a tar's stats record its
            .IR K / N ):
            their samples are keyed by the same lines, and the run would write them again under its own names.
            So is a tar whose size is not the one its stats record (cut short or changed since it was written):
            remove it and its stats for its samples to be done again.
            .BR \-\-variant ,
            .BR \-\-name ,
            .B \-\-name\-column
            and
            .B \-\-verify\-outputs
            don't apply, nor a kept column named like a sample's field.
            The default of
            .B \-\-disallow\-robots\-tags
            is then
            .BR noai,noimageai,noindex,noimageindex .
            """#)
    static let samplesPerShard = Option<Int>("samples-per-shard", value: "N", parser: .integer(1...10_000_000),
                         default: WebDatasetLayout.defaultSamplesPerShard, for: [.batch],
                         help: "samples a WebDataset tar holds at most",
                         man: #"""
            With
            .BR "\-\-output\-format webdataset" ,
            the samples a tar holds at most (img2dataset's default); 1 to 10000000.
            """#)
    static let parquet = Flag("parquet", for: [.batch], help: "write a Parquet table of its lines beside each tar",
                         man: #"""
            With
            .BR "\-\-output\-format webdataset" ,
            write
            .B 00000.parquet
            beside each tar (before the tar takes its name, as
            .B 00000_stats.json
            is): one row a line counted in the tar's stats but for lines not done, in the order they were retired (a
            sample's row in the tar's order), with the columns
            .BR key ,
            .BR url ,
            .B caption
            (with
            .BR \-\-caption\-column :
            what
            .IB KEY .txt
            holds),
            the kept columns by name (text: from JSON Lines or Parquet, a value that is no string as JSON writes it),
            .B status
            (as the stats name it:
            .BR ok " for a sample, " failed ,
            .BR filtered ,
            .BR opted_out ,
            .BR robots_disallowed ,
            .BR duplicate ),
            .B reason
            and
            .B error_message
            (the manifest's
            .B reason
            and
            .BR error.message ),
            then
            .BR width ,
            .BR height ,
            .BR original_width ,
            .B original_height
            and
            .B bytes
            (64-bit integers),
            .BR sha256 ,
            .B format
            and, with
            .BR \-\-facts ,
            the facts: the fields of the samples'
            .IB KEY .json
            as a table (null for a line that gave no sample, but its original's size when it was filtered), the way
            img2dataset writes one beside each tar, for pandas, pyarrow or DuckDB to read without opening the tars.
            Every table of a run has the same columns in the same order; a kept column named as one of them is
            refused (exit 2).
            Its pages are compressed with snappy (as pyarrow writes by default), in row groups of up to 10000
            rows or 32 MiB of values; a missing value is null.
            A table or stats file beside no tar (a run killed after writing them, before its tar took its name)
            is removed by the next run of the same shard into the folder, so the tables count exactly the
            lines the tars count.
            A line done again by a later run (a failed one, with
            .B \-\-resume
            or
            .BR \-\-retry\-failed ;
            with
            .BR \-\-resume ,
            a filtered, opted-out or disallowed one too) has a row in that run's table too, and its tar, with no sample
            if none of them gave one: across a folder, a
            .BR key 's
            row in the highest-numbered tar of its shard is its last.
            Default: no table.
            """#)
    static let captionColumn = Option<String>("caption-column", value: "NAME", parser: .text, for: [.batch],
                         help: "write this column as each sample's KEY.txt",
                         man: #"""
            With
            .BR "\-\-output\-format webdataset" ,
            write the row's column
            .I NAME
            into each sample as
            .IB KEY .txt
            (UTF-8 as given, U+FFFD for bytes that are not; from JSON Lines or Parquet, a number or boolean as JSON
            writes it, null as nothing, an array
            or object as compact JSON): the caption file that training loaders read beside the image, as
            img2dataset's
            .B \-\-caption_col
            writes it.
            A row without the column fails, naming its line, as for
            .BR \-\-keep\-columns ;
            the list must have columns.
            Default: none.
            """#)
}
