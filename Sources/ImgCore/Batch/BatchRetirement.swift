/// What a `BatchRunner` keeps while it retires its lines in input order (under its order lock).
struct BatchRetirement {
    /// Finished lines waiting for the ones before them, by sequence number.
    var pending: [Int: BatchItemReport] = [:]
    /// The sequence number of the next line to retire; starts at 0.
    var next = 0
    var progress = BatchProgress()
    /// Outputs written (files, or WebDataset samples in tars that were not given up); starts at 0.
    var written = 0
    var listFailure: ImgError?
    /// The outputs retired so far that later lines' are compared with (`--facts` duplicates).
    var duplicates = DuplicateMarker()
}
