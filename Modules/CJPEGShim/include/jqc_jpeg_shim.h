#ifndef JQC_JPEG_SHIM_H
#define JQC_JPEG_SHIM_H
#include <stddef.h>
// libjpeg's error handling (setjmp/longjmp) kept entirely in C: no longjmp crosses a Swift frame.
// JQCJPEG (issue 8) fills this in; the placeholder keeps the target buildable.
int jqc_jpeg_shim_version(void);
#endif
