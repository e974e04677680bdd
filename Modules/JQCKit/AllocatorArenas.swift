#if canImport(Glibc)
    import Glibc
#endif

/// The C allocator's arenas for this process (glibc `malloc`; SPEC.md §6, "memory flat while syncing").
///
/// glibc gives a thread that finds the main arena busy an arena of its own, up to 8 per core, and each keeps the
/// memory freed into it. The engine's threads (the database queue, the transport, Swift's cooperative pool) took
/// up to ~1 MiB more resident memory that way from one run to the next: `make bench`'s memory row read +8.5 % to
/// +10.6 % over the same 10,000-item sync with glibc's default, +8.5 % to +8.8 % with at most 2 or 4 arenas
/// (2026-12-07). At 2 the threads waited on the arenas' locks (sync growth at 1,000 items: a median of 1.10×
/// curl in five runs against 1.04–1.06× at 4 or with no cap), hence 4. JQCComposition's `AppComposition` caps
/// them once per process.
public enum AllocatorArenas {
    /// The arenas glibc may make: 4, two per core of the 2-core devices this engine runs on.
    public static let limit: Int32 = 4

    /// Caps glibc's arenas at ``limit`` (`mallopt(M_ARENA_MAX, …)`), once per process; later calls do nothing. A
    /// no-op where the C library is not glibc.
    /// - Returns: whether the cap is in force (`false` where there is no glibc, or it refused the setting).
    @discardableResult
    public static func cap() -> Bool { capped }

    private static let capped: Bool = {
        #if canImport(Glibc)
            // `mallopt` is declared in <malloc.h>, which the Glibc module does not import: found by name instead.
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return false }
            typealias MallOpt = @convention(c) (Int32, Int32) -> Int32
            let mallopt = unsafeBitCast(symbol, to: MallOpt.self)
            return mallopt(arenaMaxParameter, limit) == 1
        #else
            return false
        #endif
    }()

    /// `M_ARENA_MAX` of glibc's <malloc.h> (mallopt(3)).
    private static let arenaMaxParameter: Int32 = -8
}
