#include <stdio.h>
#include <histedit.h>

// Typed wrappers for libedit's variadic el_set/history calls (STYLE.md pitfalls).
typedef char *(*jqc_el_prompt_func)(EditLine *);
typedef unsigned char (*jqc_el_command_func)(EditLine *, int);
static inline int jqc_el_set_prompt(EditLine *el, jqc_el_prompt_func prompt) { return el_set(el, EL_PROMPT, prompt); }
static inline int jqc_el_set_editor(EditLine *el, const char *mode) { return el_set(el, EL_EDITOR, mode); }
static inline int jqc_el_set_history(EditLine *el, History *history) { return el_set(el, EL_HIST, history, history); }
static inline int jqc_el_set_signal(EditLine *el, int on) { return el_set(el, EL_SIGNAL, on); }
static inline int jqc_el_set_clientdata(EditLine *el, void *data) { return el_set(el, EL_CLIENTDATA, data); }
static inline void *jqc_el_get_clientdata(EditLine *el) { void *data = NULL; el_get(el, EL_CLIENTDATA, &data); return data; }
static inline int jqc_el_add_function(EditLine *el, const char *name, const char *help, jqc_el_command_func f) {
    return el_set(el, EL_ADDFN, name, help, f);
}
static inline int jqc_el_bind(EditLine *el, const char *key, const char *name) { return el_set(el, EL_BIND, key, name, NULL); }
static inline int jqc_history_setsize(History *h, HistEvent *ev, int size) { return history(h, ev, H_SETSIZE, size); }
static inline int jqc_history_enter(History *h, HistEvent *ev, const char *line) { return history(h, ev, H_ENTER, line); }
static inline int jqc_history_load(History *h, HistEvent *ev, const char *path) { return history(h, ev, H_LOAD, path); }
static inline int jqc_history_save(History *h, HistEvent *ev, const char *path) { return history(h, ev, H_SAVE, path); }
static inline int jqc_history_setunique(History *h, HistEvent *ev, int on) { return history(h, ev, H_SETUNIQUE, on); }
/// el_init on the process's standard streams (Swift 6 cannot read C's stdin/stdout globals safely).
static inline EditLine *jqc_el_init(const char *program) { return el_init(program, stdin, stdout, stderr); }
/// The shell's prompt, in static storage libedit can keep pointing at.
static inline char *jqc_el_shell_prompt(EditLine *el) { (void)el; static char prompt[] = "jqc> "; return prompt; }
/// Sets one tty flag of libedit's edit mode (e.g. "-isig": Ctrl-C reaches the editor as a key, not a signal).
static inline int jqc_el_set_edit_tty(EditLine *el, const char *setting) { return el_set(el, EL_SETTY, "-d", setting, NULL); }
