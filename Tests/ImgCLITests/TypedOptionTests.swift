import Foundation
import Testing
@testable import ImgCLI
@testable import ImgCore
@testable import ImgRenderer

/// Each option carries its parsing, range and default: read in process through its typed declaration
/// (`arguments[Options.timeout]`), the default taken from the one ImgCore value and stated by help and the man page.
@Suite("typed options in process")
struct TypedOptionTests {
    static func scan(_ words: [String]) throws(ImgError) -> ScannedArguments { try ArgumentScanner.scan(words) }

    @Test func valuesAreReadTyped() throws {
        let arguments = try Self.scan(["--timeout", "2.5", "--retry=4", "--max-bytes", "2M", "--temp-age", "2h",
                                       "--renderer", "auto", "--idle", "9", "-q", "--limit", "0", "--timeout", "3"])
        #expect(try arguments[Options.timeout] == 3, "the last one given wins")
        #expect(try arguments[Options.retry] == 4)
        #expect(try arguments[Options.maxBytes] == 2 << 20)
        #expect(try arguments[Options.tempAge] == 7200)
        #expect(try arguments[Options.renderer] == true)
        #expect(try arguments[Options.idle] == 9)
        #expect(try arguments[Options.limit] == 0)
        #expect(arguments[Options.quiet] && !arguments[Options.verbose])
        #expect(try arguments[Options.connectTimeout] == nil)
    }

    @Test(arguments: [
        (["--retry", "101"], "bad --retry '101': expected a whole number from 0 to 100"),
        (["--retry", "-1"], "bad --retry '-1': expected a whole number from 0 to 100"),
        (["--timeout", "0"], "bad --timeout '0': expected seconds greater than 0 and at most 86400"),
        (["--timeout", "86401"], "bad --timeout '86401': expected seconds greater than 0 and at most 86400"),
        (["--max-bytes", "0"], "bad --max-bytes '0': expected a size such as 512K, 64M or 1G"),
        (["--max-pixels", "0"], "bad --max-pixels '0': expected a whole number from 1 up"),
        (["--limit", "x"], "bad --limit 'x': expected a whole number from 0 up"),
        (["--temp-age", "soon"], "bad --temp-age 'soon': expected a duration such as 0, 30m, 1h or 2d"),
        (["--renderer", "on"], "bad --renderer 'on': expected auto or off"),
        (["--per-host", "257"], "bad --per-host '257': expected a whole number from 1 to 256"),
    ])
    func eachOptionChecksItsOwnRange(words: [String], message: String) throws {
        let arguments = try Self.scan(words)
        let refused = UsageError.message { () throws(ImgError) in
            _ = try arguments[Options.retry]; _ = try arguments[Options.timeout]; _ = try arguments[Options.maxBytes]
            _ = try arguments[Options.maxPixels]; _ = try arguments[Options.limit]; _ = try arguments[Options.tempAge]
            _ = try arguments[Options.renderer]; _ = try arguments[Options.perHost]
        }
        #expect(refused == message)
    }

    @Test func aVariableIsReadByTheOptionsParserAndNamed() throws {
        let settings = try RendererSettings(try Self.scan([]), environment: ["IMGFETCH_RENDERER": "auto",
                                                                             "IMGFETCH_RENDERER_IDLE": "12"])
        #expect(settings.enabled && settings.idleLimit == 12)
        let refused = UsageError.message { () throws(ImgError) in
            _ = try RendererSettings(try Self.scan([]), environment: ["IMGFETCH_RENDERER_IDLE": "never"])
        }
        #expect(refused == "bad IMGFETCH_RENDERER_IDLE 'never': expected seconds greater than 0 and at most 86400")
        let option = try RendererSettings(try Self.scan(["--renderer", "off"]), environment: ["IMGFETCH_RENDERER": "auto"])
        #expect(!option.enabled, "the option wins over the variable")
    }

    @Test func defaultsAreTheImgCoreValuesAndStatedOnce() {
        #expect(Options.timeout.defaultValue == NetworkOptions().timeout)
        #expect(Options.maxBytes.defaultValue == NetworkOptions().maxBytes)
        #expect(Options.maxPixels.defaultValue == DecodeOptions().maxPixels)
        #expect(Options.memoryLimit.defaultValue == PipelineConfiguration().memoryLimit)
        #expect(Options.tempAge.defaultValue == CacheMaintenance.defaultTempAge)
        #expect(Options.limit.defaultValue == CacheInspector.defaultLimit)
        #expect(Options.idle.defaultValue == RendererServer.defaultIdleLimit)
        #expect(Options.timeout.definition.defaultValue == "30" && Options.maxBytes.definition.defaultValue == "64M")
        #expect(Options.tempAge.definition.defaultValue == "1h")
        let page = ManPageWriter.optionsSection()
        for option in OptionCatalog.all where option.statesDefault {
            let value = ManPageWriter.escape(option.defaultValue!)
            #expect(!option.man.contains("Default: \(value)"), "--\(option.long) words its default by hand too")
            #expect(page.contains(option.man + "\nDefault: \(value)."), "--\(option.long): no generated Default line")
        }
        #expect(OptionCatalog.all.filter(\.statesDefault).count >= 14)
    }

    @Test func theDefaultsAreTheOnesUsed() throws {
        let settings = try FetchSettings(try Self.scan([]), environment: [:], console: .process)
        #expect(settings.configuration.network.timeout == Options.timeout.defaultValue)
        #expect(settings.template.decoding.maxFrames == Options.maxFrames.defaultValue)
        // Defaults the options word as text are the ImgCore values, in help and in the man page alike.
        #expect(settings.cacheSettings.ttl == TimeToLive.parse(try #require(Options.ttl.definition.defaultValue)))
        #expect(Options.ttl.definition.man.contains("Default: \(Options.ttl.definition.defaultValue!) (or"))
        let blurhash = try #require(Options.blurhash.definition.defaultValue)
        #expect(blurhash == "\(FactsRequest().blurhashX),\(FactsRequest().blurhashY)")
        #expect(Options.blurhash.definition.man.contains("Default: \(blurhash)."))
    }

    @Test func completionsOfferTheDeclaredChoices() throws {
        #expect(Options.inputFormat.definition.choices == ListFormat.allCases.map(\.rawValue))
        #expect(Options.renderer.definition.choices == ["auto", "off"])
        let fish = CompletionWriter.fish()
        #expect(fish.contains("-l input-format -r -f -a 'auto lines csv tsv jsonl parquet'"), "\(fish)")
        #expect(try arguments(["--input-format", "tsv"])[Options.inputFormat] == .tsv)
        // A value syntax that is a list of words is offered only through a declaration's choices.
        for option in OptionCatalog.all where !option.isHidden {
            guard let value = option.value, value.contains("|"), !value.contains(where: \.isUppercase) else { continue }
            #expect(option.choices != nil, "--\(option.long) \(value) declares no choices")
        }
    }

    private func arguments(_ words: [String]) throws(ImgError) -> ScannedArguments { try Self.scan(words) }
}
