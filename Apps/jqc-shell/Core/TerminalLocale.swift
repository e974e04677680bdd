import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The character type libedit edits with (STYLE.md pitfalls: libedit needs the locale). libedit decides
/// how wide a character is, whether it is printable (an `ä` typed under the C locale is its Meta-d:
/// "delete the next word") and how to write it back from `LC_CTYPE`, so a UTF-8 `LC_CTYPE` must be set
/// before `el_init`. The shell's own reader decodes the terminal's bytes as UTF-8 whatever the locale.
enum TerminalLocale {
    /// The locales tried, in order, when the environment's is not UTF-8 (an unset `LANG` means "C").
    static let fallbacks = ["C.UTF-8", "C.utf8", "en_US.UTF-8"]

    /// Sets `LC_CTYPE` from the environment, or to a UTF-8 fallback when the environment's is not UTF-8.
    /// Only `LC_CTYPE` changes: number and date formatting stay as they were.
    /// - Returns: `true` when a UTF-8 `LC_CTYPE` is in effect; `false` when none is installed (the caller
    ///   then reads lines without editing and says why).
    static func prepareUTF8() -> Bool {
        if setlocale(LC_CTYPE, "") != nil, isUTF8 { return true }
        for candidate in fallbacks where setlocale(LC_CTYPE, candidate) != nil && isUTF8 { return true }
        _ = setlocale(LC_CTYPE, "C")
        return false
    }

    /// Whether the current `LC_CTYPE` encodes characters as UTF-8.
    static var isUTF8: Bool {
        guard let codeset = nl_langinfo(nl_item(CODESET)) else { return false }
        let name = String(cString: codeset).uppercased().replacingOccurrences(of: "-", with: "")
        return name == "UTF8"
    }

    /// The sentence shown when no UTF-8 locale can be set.
    static let unavailableSentence =
        "No UTF-8 locale is installed (tried the environment's, " + fallbacks.joined(separator: ", ")
        + "), so line editing is off for this session: lines are read as UTF-8 without history recall or Tab. "
        + "Install one (e.g. the Debian package 'locales') to get editing back."
}
