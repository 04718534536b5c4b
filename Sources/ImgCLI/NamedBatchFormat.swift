import Foundation
import ImgCore

extension FetchSettings {
    /// `batch --name TEMPLATE` ending in an image format's extension, with no `{ext}`, names the format of every
    /// output, as `-o FILE`'s extension does for one: that format unless `--format` gives one; refused when
    /// `--format` gives another, or `auto` (the names are claimed before the format is chosen). Without it a PNG
    /// original would be written under `.jpg`.
    static func applyNamedFormat(of template: NameTemplate, to encoding: inout OutputEncoding) throws(ImgError) {
        guard template.extensionCount == 0, let format = NameTemplate.format(ofColumn: template.text) else { return }
        let named = (template.text as NSString).pathExtension // as written
        if encoding.candidateFormats != nil {
            throw .usage("--name \(template.text) names .\(named) but --format auto chooses the format: "
                         + "use {ext} in the name (it takes the chosen format's extension)")
        }
        if let given = encoding.format, given != format {
            throw .usage("--name \(template.text) names \(format.fileExtension.uppercased()) but --format is "
                         + "\(given.rawValue): give a matching extension, or {ext}")
        }
        encoding.format = format
        try checkNamedFormat(encoding)
    }
}
