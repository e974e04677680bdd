#include <stdio.h>
#include <jpeglib.h>
#include "jqc_jpeg_shim.h"

int jqc_jpeg_shim_version(void) { return JPEG_LIB_VERSION; }
