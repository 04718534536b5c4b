extension FixedWidthInteger {
    /// `self × other`, or the type's largest (smallest) value when the product overflows: for sizes and counts
    /// read from input, where a wrapped or trapping product would misjudge a limit or end the process.
    func saturatingMultiplied(by other: Self) -> Self {
        let (product, overflow) = multipliedReportingOverflow(by: other)
        guard overflow else { return product }
        return (self < 0) == (other < 0) ? .max : .min
    }

    /// `self + other`, or the type's largest (smallest) value when the sum overflows.
    func saturatingAdding(_ other: Self) -> Self {
        let (sum, overflow) = addingReportingOverflow(other)
        guard overflow else { return sum }
        return other < 0 ? .min : .max
    }
}
