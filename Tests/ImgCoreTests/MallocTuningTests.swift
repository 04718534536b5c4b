import CVips
import Testing
@testable import ImgCore

/// What `VipsRuntime.prepareProcess` leaves to the environment: a malloc setting that `MALLOC_ARENA_MAX`,
/// `MALLOC_MMAP_THRESHOLD_` or `MALLOC_TRIM_THRESHOLD_` sets, or that `GLIBC_TUNABLES` names, is glibc's to apply, and
/// imgfetch doesn't set it over. (What the settings do to memory and CPU is measured in bench/limits.md: in a test
/// process, blocks that other tests freed before decide where a large block comes from.)
@Suite("Malloc tuning")
struct MallocTuningTests {
    static func given(_ value: String?, tunables: String?, _ tunable: String) -> Bool {
        imgf_malloc_setting_given(value, tunables, tunable) != 0
    }

    @Test func theEnvironmentsOwnSettingsWin() {
        #expect(!Self.given(nil, tunables: nil, "glibc.malloc.arena_max"))
        #expect(!Self.given("", tunables: nil, "glibc.malloc.arena_max"), "an empty variable sets nothing")
        #expect(Self.given("4", tunables: nil, "glibc.malloc.arena_max"))
        #expect(Self.given(nil, tunables: "glibc.malloc.arena_max=4", "glibc.malloc.arena_max"))
        #expect(Self.given(nil, tunables: "glibc.malloc.tcache_count=0:glibc.malloc.mmap_threshold=262144",
                           "glibc.malloc.mmap_threshold"))
        #expect(!Self.given(nil, tunables: "glibc.malloc.arena_max=4", "glibc.malloc.mmap_threshold"),
                "another tunable leaves this one to imgfetch")
    }

    /// Four arenas a core (a batch's allocating threads: its workers and the sink helpers), at most 8.
    @Test func arenasAreFourACoreAtMostEight() {
        #expect(VipsRuntime.mallocArenas(cores: 1) == 4)
        #expect(VipsRuntime.mallocArenas(cores: 2) == 8)
        #expect(VipsRuntime.mallocArenas(cores: 0) == 4)
        #expect(VipsRuntime.mallocArenas(cores: 64) == 8)
    }

    @Test func imgfetchSetsTheArenasTheMappingThresholdAndTheTrimThresholdTheEnvironmentLeaves() {
        let trim = Int32(IMGF_MALLOC_TRIM)
        let all = Int32(IMGF_MALLOC_ARENAS | IMGF_MALLOC_MMAP) | trim
        #expect(imgf_malloc_settings_left(nil, nil, nil, nil) == all)
        #expect(imgf_malloc_settings_left(nil, nil, "16777216", nil) == all & ~trim)
        #expect(imgf_malloc_settings_left(nil, nil, nil, "glibc.malloc.trim_threshold=0")
                == all & ~trim)
        #expect(imgf_malloc_settings_left("2", "262144", nil, nil) == trim,
                "fixing the mapping threshold leaves the trim threshold to imgfetch")
    }

    /// The trim threshold is raised for a process that measures Butteraugli distances, when it prepares its first
    /// reference, and not before: other runs keep glibc's 128 KiB.
    @Test func measuringADistanceKeepsFreedMemory() {
        #expect(VipsRuntime.mallocKeptFreeBytes == 128 << 10 && VipsRuntime.mallocKeptFreeBytesMeasuring == 8 << 20)
        _ = ButteraugliReference(MetricPixels(width: 1, height: 1, rgb: [0, 0, 0]))
        #expect(VipsRuntime.keepsFreedMemoryForMeasuring)
    }
}
