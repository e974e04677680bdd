#include <stdio.h>
#include <wchar.h>
#include <histedit.h>

// glibc declares wcwidth only under _XOPEN_SOURCE; its prototype, for the display width of a character.
extern int wcwidth(wchar_t character);
static inline int jqc_wcwidth(wchar_t character) { return wcwidth(character); }

// Typed wrappers for libedit's variadic el_wset/history_w calls (STYLE.md pitfalls: Swift cannot call C
// variadics). The shell uses libedit's wide-character API throughout (el_wgets, history_w, el_wline,
// el_winsertstr) after setting a UTF-8 LC_CTYPE, so multibyte text is edited as characters.

typedef unsigned char (*jqc_el_command_func)(EditLine *, int);
typedef int (*jqc_el_read_func)(EditLine *, wchar_t *);

/// el_init on the process's standard streams (Swift 6 cannot read C's stdin/stdout globals safely).
static inline EditLine *jqc_el_init(const char *program) { return el_init(program, stdin, stdout, stderr); }

/// The shell's prompt, in static storage libedit can keep pointing at.
static inline wchar_t *jqc_el_shell_prompt(EditLine *el) {
    (void)el;
    static wchar_t prompt[] = L"jqc> ";
    return prompt;
}
static inline int jqc_el_set_prompt(EditLine *el) { return el_wset(el, EL_PROMPT, jqc_el_shell_prompt); }
static inline int jqc_el_set_editor(EditLine *el, const wchar_t *mode) { return el_wset(el, EL_EDITOR, mode); }
/// EL_HIST takes the history *function* and the handle. The handle's parameter is deliberately not named
/// `history`: such a parameter would shadow the function and libedit would call the handle (the crash of
/// issue 14). The wide handle goes with history_w.
static inline int jqc_el_set_history(EditLine *el, HistoryW *handle) { return el_wset(el, EL_HIST, history_w, handle); }
static inline int jqc_el_set_signal(EditLine *el, int on) { return el_wset(el, EL_SIGNAL, on); }
static inline int jqc_el_set_clientdata(EditLine *el, void *data) { return el_wset(el, EL_CLIENTDATA, data); }
static inline void *jqc_el_get_clientdata(EditLine *el) {
    void *data = NULL;
    el_wget(el, EL_CLIENTDATA, &data);
    return data;
}
/// The function libedit calls for each character (our own reader: the terminal and the message wake-up).
static inline int jqc_el_set_read_function(EditLine *el, jqc_el_read_func read) { return el_wset(el, EL_GETCFN, read); }
static inline int jqc_el_add_function(EditLine *el, const wchar_t *name, const wchar_t *help, jqc_el_command_func f) {
    return el_wset(el, EL_ADDFN, name, help, f);
}
static inline int jqc_el_bind(EditLine *el, const wchar_t *key, const wchar_t *name) {
    return el_wset(el, EL_BIND, key, name, NULL);
}
/// Sets one tty flag of libedit's edit mode (e.g. "-isig": Ctrl-C reaches the editor as a key, not a signal).
static inline int jqc_el_set_edit_tty(EditLine *el, const wchar_t *setting) {
    return el_wset(el, EL_SETTY, L"-d", setting, NULL);
}
/// Forgets what libedit believes is on the screen and draws the prompt and the line again at the cursor,
/// which must be at the start of an empty line.
static inline void jqc_el_refresh(EditLine *el) { el_wset(el, EL_REFRESH); }
/// Puts the terminal in libedit's edit mode now, before el_wgets draws the prompt: keys typed once the prompt
/// shows are never echoed by the kernel or held back in its line buffer.
static inline void jqc_el_prepare_terminal(EditLine *el) { el_wset(el, EL_PREP_TERM, 1); }

static inline int jqc_history_setsize(HistoryW *h, int size) {
    HistEventW event;
    return history_w(h, &event, H_SETSIZE, size);
}
static inline int jqc_history_setunique(HistoryW *h, int on) {
    HistEventW event;
    return history_w(h, &event, H_SETUNIQUE, on);
}
static inline int jqc_history_enter(HistoryW *h, const wchar_t *line) {
    HistEventW event;
    return history_w(h, &event, H_ENTER, line);
}
