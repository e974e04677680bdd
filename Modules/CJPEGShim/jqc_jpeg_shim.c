// The C side of JQCJPEG (issue 8): every libjpeg call that may fail runs here, under a setjmp taken
// in the same C function. libjpeg's error_exit and our warning classifier longjmp back to it; no
// longjmp ever crosses a Swift frame (STYLE.md pitfalls).
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>
#include "jqc_jpeg_shim.h"

// MARK: - Error manager

struct jqc_error_mgr {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    int scanning;          // 1 once scan decoding has begun (after jpeg_read_header returned)
    int kind;              // jqc_jpeg_kind of the failure that longjmp'ed
    int msg_code;
    int tolerated;
    int first_tolerated_code;
    char message[JMSG_LENGTH_MAX];
    char tolerated_message[JMSG_LENGTH_MAX];
};

static void jqc_fail(j_common_ptr cinfo, int kind) {
    struct jqc_error_mgr *err = (struct jqc_error_mgr *)cinfo->err;
    err->kind = kind;
    err->msg_code = err->pub.msg_code;
    err->message[0] = 0;
    (*err->pub.format_message)(cinfo, err->message);
    longjmp(err->jump, 1);
}

static void jqc_error_exit(j_common_ptr cinfo) {
    int kind = JQC_JPEG_CORRUPT;
    switch (cinfo->err->msg_code) {
    case JERR_BAD_PRECISION: kind = JQC_JPEG_PRECISION; break;
    case JERR_IMAGE_TOO_BIG: kind = JQC_JPEG_TOO_BIG; break;
    case JERR_NO_SOI: case JERR_INPUT_EMPTY: kind = JQC_JPEG_NOT_JPEG; break;
    case JERR_OUT_OF_MEMORY: kind = JQC_JPEG_NO_MEMORY; break;
    default: break;
    }
    jqc_fail(cinfo, kind);
}

/// Warnings (msg_level -1) are judged by code: the ones that mean damaged pixels stop decoding at once;
/// header oddities are counted and tolerated. Trace messages (msg_level >= 0) are ignored.
static void jqc_emit_message(j_common_ptr cinfo, int msg_level) {
    struct jqc_error_mgr *err = (struct jqc_error_mgr *)cinfo->err;
    if (msg_level >= 0) return;
    int code = err->pub.msg_code;
    switch (code) {
    case JWRN_JPEG_EOF:
        jqc_fail(cinfo, JQC_JPEG_TRUNCATED);
        return;
    case JWRN_HIT_MARKER:
    case JWRN_HUFF_BAD_CODE:
    case JWRN_MUST_RESYNC:
    case JWRN_BOGUS_PROGRESSION:
#if defined(C_ARITH_CODING_SUPPORTED) || defined(D_ARITH_CODING_SUPPORTED)
    case JWRN_ARITH_BAD_CODE:
#endif
        jqc_fail(cinfo, JQC_JPEG_DAMAGED);
        return;
    case JWRN_EXTRANEOUS_DATA: {
        int marker = err->pub.msg_parm.i[1];
        int restart_or_end = (marker >= 0xD0 && marker <= 0xD7) || marker == 0xD9;
        if (err->scanning || restart_or_end) {
            jqc_fail(cinfo, JQC_JPEG_DAMAGED);
            return;
        }
        break;
    }
    default:
        break;
    }
    err->pub.num_warnings++;
    if (err->tolerated++ == 0) {
        err->first_tolerated_code = code;
        err->tolerated_message[0] = 0;
        (*err->pub.format_message)(cinfo, err->tolerated_message);
    }
}

static void jqc_error_init(struct jqc_error_mgr *err) {
    jpeg_std_error(&err->pub);
    err->pub.error_exit = jqc_error_exit;
    err->pub.emit_message = jqc_emit_message;
    err->scanning = 0;
    err->kind = JQC_JPEG_OK;
    err->msg_code = -1;
    err->tolerated = 0;
    err->first_tolerated_code = -1;
    err->message[0] = 0;
    err->tolerated_message[0] = 0;
}

static void jqc_status_clear(jqc_jpeg_status *status) {
    if (!status) return;
    memset(status, 0, sizeof *status);
    status->msg_code = -1;
    status->first_tolerated_code = -1;
}

static int jqc_status_fill(jqc_jpeg_status *status, const struct jqc_error_mgr *err, int kind) {
    if (!status) return kind;
    status->kind = kind;
    status->msg_code = kind == JQC_JPEG_OK ? -1 : err->msg_code;
    status->tolerated_warnings = err->tolerated;
    status->first_tolerated_code = err->first_tolerated_code;
    if (kind == JQC_JPEG_OK) {
        status->message[0] = 0;
    } else {
        snprintf(status->message, sizeof status->message, "%s", err->message);
    }
    snprintf(status->tolerated_message, sizeof status->tolerated_message, "%s", err->tolerated_message);
    return kind;
}

static int jqc_status_simple(jqc_jpeg_status *status, int kind, const char *message) {
    jqc_status_clear(status);
    if (status) {
        status->kind = kind;
        snprintf(status->message, sizeof status->message, "%s", message);
    }
    return kind;
}

// MARK: - Decoder

struct jqc_decoder {
    struct jpeg_decompress_struct cinfo;
    struct jqc_error_mgr err;
    const unsigned char *data;
    size_t length;
    int header_read;
    int prepared;
    int out_width;
    int out_height;
    int out_channels;
    int convert_cmyk;
};

jqc_decoder *jqc_decoder_create(const unsigned char *data, size_t length) {
    jqc_decoder *volatile decoder = calloc(1, sizeof(jqc_decoder));
    if (!decoder) return NULL;
    decoder->data = data;
    decoder->length = length;
    jqc_error_init(&decoder->err);
    decoder->cinfo.err = &decoder->err.pub;
    if (setjmp(decoder->err.jump)) {
        jpeg_destroy_decompress(&decoder->cinfo);
        free(decoder);
        return NULL;
    }
    jpeg_create_decompress(&decoder->cinfo);
    return decoder;
}

void jqc_decoder_destroy(jqc_decoder *decoder) {
    if (!decoder) return;
    jpeg_destroy_decompress(&decoder->cinfo);
    free(decoder);
}

int jqc_decoder_read_header(jqc_decoder *decoder, jqc_jpeg_header *header, jqc_jpeg_status *status) {
    jqc_status_clear(status);
    if (!decoder || !header) return jqc_status_simple(status, JQC_JPEG_BAD_ARGUMENT, "No decoder.");
    memset(header, 0, sizeof *header);
    if (decoder->header_read) return jqc_status_simple(status, JQC_JPEG_BAD_ARGUMENT, "Header already read.");
    if (decoder->length == 0) {
        return jqc_status_simple(status, JQC_JPEG_NOT_JPEG, "Empty input file");
    }
    struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
    if (setjmp(decoder->err.jump)) {
        // Whatever get_sof saw before the failure (e.g. a 12-bit precision) is still reported.
        header->width = (int)cinfo->image_width;
        header->height = (int)cinfo->image_height;
        header->data_precision = cinfo->data_precision;
        header->components = cinfo->num_components;
        jpeg_abort_decompress(cinfo);
        return jqc_status_fill(status, &decoder->err, decoder->err.kind);
    }
    decoder->err.scanning = 0;
    jpeg_mem_src(cinfo, decoder->data, (unsigned long)decoder->length);
    jpeg_save_markers(cinfo, JPEG_APP0 + 1, 0xFFFF);
    (void)jpeg_read_header(cinfo, TRUE);
    decoder->header_read = 1;
    header->width = (int)cinfo->image_width;
    header->height = (int)cinfo->image_height;
    header->components = cinfo->num_components;
    header->color_space = (int)cinfo->jpeg_color_space;
    header->data_precision = cinfo->data_precision;
    header->progressive = cinfo->progressive_mode ? 1 : 0;
    header->arithmetic = cinfo->arith_code ? 1 : 0;
    header->saw_adobe_marker = cinfo->saw_Adobe_marker ? 1 : 0;
    header->adobe_transform = cinfo->Adobe_transform;
    int count = 0;
    for (jpeg_saved_marker_ptr m = cinfo->marker_list; m; m = m->next) {
        if (m->marker == JPEG_APP0 + 1) count++;
    }
    header->app1_count = count;
    return jqc_status_fill(status, &decoder->err, JQC_JPEG_OK);
}

int jqc_decoder_app1(jqc_decoder *decoder, int index, const unsigned char **data, size_t *length) {
    if (!decoder || !decoder->header_read || !data || !length) return 0;
    int seen = 0;
    for (jpeg_saved_marker_ptr m = decoder->cinfo.marker_list; m; m = m->next) {
        if (m->marker != JPEG_APP0 + 1) continue;
        if (seen++ == index) {
            *data = m->data;
            *length = m->data_length;
            return 1;
        }
    }
    return 0;
}

int jqc_decoder_quant_table(jqc_decoder *decoder, int slot, unsigned short values[64]) {
    if (!decoder || !decoder->header_read || slot < 0 || slot >= NUM_QUANT_TBLS || !values) return 0;
    JQUANT_TBL *table = decoder->cinfo.quant_tbl_ptrs[slot];
    if (!table) return 0;
    for (int i = 0; i < DCTSIZE2; i++) values[i] = table->quantval[i];
    return 1;
}

int jqc_decoder_prepare(jqc_decoder *decoder, int scale_denom, int *out_width, int *out_height,
                        int *out_channels, jqc_jpeg_status *status) {
    jqc_status_clear(status);
    if (!decoder || !decoder->header_read || decoder->prepared) {
        return jqc_status_simple(status, JQC_JPEG_BAD_ARGUMENT, "Read the header once before preparing.");
    }
    if (scale_denom != 1 && scale_denom != 2 && scale_denom != 4 && scale_denom != 8) {
        return jqc_status_simple(status, JQC_JPEG_BAD_ARGUMENT, "The scale denominator must be 1, 2, 4 or 8.");
    }
    struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
    if (setjmp(decoder->err.jump)) {
        jpeg_abort_decompress(cinfo);
        return jqc_status_fill(status, &decoder->err, decoder->err.kind);
    }
    cinfo->scale_num = 1;
    cinfo->scale_denom = (unsigned int)scale_denom;
    switch (cinfo->jpeg_color_space) {
    case JCS_GRAYSCALE:
        cinfo->out_color_space = JCS_GRAYSCALE;
        decoder->out_channels = 1;
        break;
    case JCS_CMYK:
    case JCS_YCCK:
        cinfo->out_color_space = JCS_CMYK;
        decoder->out_channels = 3;
        decoder->convert_cmyk = 1;
        break;
    default:
        cinfo->out_color_space = JCS_RGB;
        decoder->out_channels = 3;
        break;
    }
    jpeg_calc_output_dimensions(cinfo);
    decoder->out_width = (int)cinfo->output_width;
    decoder->out_height = (int)cinfo->output_height;
    decoder->prepared = 1;
    if (out_width) *out_width = decoder->out_width;
    if (out_height) *out_height = decoder->out_height;
    if (out_channels) *out_channels = decoder->out_channels;
    return jqc_status_fill(status, &decoder->err, JQC_JPEG_OK);
}

/// CMYK JPEG samples are read as Adobe-inverted (stored 255 − ink, so 255 is no ink) whether or not an
/// Adobe APP14 marker is present, as browsers and Pillow do (issue 18): plain-CMYK writers that omit the
/// marker are rarer than Photoshop-style files that lost it, and reading them the other way round turned
/// solid red into a near-black negative. Each channel is then (255 − C)(255 − K)/255 = C'·K'/255.
static void jqc_cmyk_row_to_rgb(const JSAMPLE *cmyk, unsigned char *rgb, int width) {
    for (int x = 0; x < width; x++) {
        unsigned int c = cmyk[4 * x], m = cmyk[4 * x + 1], y = cmyk[4 * x + 2], k = cmyk[4 * x + 3];
        rgb[3 * x] = (unsigned char)((c * k + 127) / 255);
        rgb[3 * x + 1] = (unsigned char)((m * k + 127) / 255);
        rgb[3 * x + 2] = (unsigned char)((y * k + 127) / 255);
    }
}

int jqc_decoder_decode(jqc_decoder *decoder, unsigned char *buffer, size_t size, jqc_jpeg_status *status) {
    jqc_status_clear(status);
    if (!decoder || !decoder->prepared || !buffer) {
        return jqc_status_simple(status, JQC_JPEG_BAD_ARGUMENT, "Prepare the decoder and pass a buffer.");
    }
    size_t row_bytes = (size_t)decoder->out_width * (size_t)decoder->out_channels;
    if (size < row_bytes * (size_t)decoder->out_height) {
        return jqc_status_simple(status, JQC_JPEG_BAD_ARGUMENT, "The output buffer is too small.");
    }
    struct jpeg_decompress_struct *cinfo = &decoder->cinfo;
    if (setjmp(decoder->err.jump)) {
        jpeg_abort_decompress(cinfo);
        return jqc_status_fill(status, &decoder->err, decoder->err.kind);
    }
    decoder->err.scanning = 1;
    (void)jpeg_start_decompress(cinfo);
    if ((int)cinfo->output_width != decoder->out_width || (int)cinfo->output_height != decoder->out_height) {
        jpeg_abort_decompress(cinfo);
        return jqc_status_simple(status, JQC_JPEG_BAD_ARGUMENT, "The output size changed after preparing.");
    }
    if (decoder->convert_cmyk) {
        JSAMPARRAY scratch = (*cinfo->mem->alloc_sarray)((j_common_ptr)cinfo, JPOOL_IMAGE,
                                                        cinfo->output_width * 4, 1);
        while (cinfo->output_scanline < cinfo->output_height) {
            size_t y = cinfo->output_scanline;
            if (jpeg_read_scanlines(cinfo, scratch, 1) != 1) break;
            jqc_cmyk_row_to_rgb(scratch[0], buffer + y * row_bytes, decoder->out_width);
        }
    } else {
        JSAMPROW rows[16];
        while (cinfo->output_scanline < cinfo->output_height) {
            JDIMENSION first = cinfo->output_scanline;
            JDIMENSION count = cinfo->output_height - first;
            if (count > 16) count = 16;
            for (JDIMENSION i = 0; i < count; i++) rows[i] = buffer + (size_t)(first + i) * row_bytes;
            if (jpeg_read_scanlines(cinfo, rows, count) == 0) break;
        }
    }
    if (cinfo->output_scanline < cinfo->output_height) {
        jpeg_abort_decompress(cinfo);
        return jqc_status_simple(status, JQC_JPEG_TRUNCATED, "Premature end of JPEG file");
    }
    (void)jpeg_finish_decompress(cinfo);
    return jqc_status_fill(status, &decoder->err, JQC_JPEG_OK);
}

// MARK: - Encoder

struct jqc_dest_mgr {
    struct jpeg_destination_mgr pub;
    unsigned char *buffer;
    size_t capacity;
    size_t max_bytes;
    size_t length;
};

struct jqc_encoder {
    struct jpeg_compress_struct cinfo;
    struct jqc_error_mgr err;
    struct jqc_dest_mgr dest;
};

static void jqc_dest_init(j_compress_ptr cinfo) {
    struct jqc_dest_mgr *dest = (struct jqc_dest_mgr *)cinfo->dest;
    dest->pub.next_output_byte = dest->buffer;
    dest->pub.free_in_buffer = dest->capacity;
}

static boolean jqc_dest_empty(j_compress_ptr cinfo) {
    struct jqc_dest_mgr *dest = (struct jqc_dest_mgr *)cinfo->dest;
    struct jqc_error_mgr *err = (struct jqc_error_mgr *)cinfo->err;
    size_t old = dest->capacity;
    size_t grown = old * 2;
    if (dest->max_bytes && grown > dest->max_bytes) grown = dest->max_bytes;
    if (grown <= old) {
        err->kind = JQC_JPEG_OUTPUT_TOO_BIG;
        err->msg_code = -1;
        snprintf(err->message, sizeof err->message, "The encoded JPEG would exceed %zu bytes", dest->max_bytes);
        longjmp(err->jump, 1);
    }
    unsigned char *bigger = realloc(dest->buffer, grown);
    if (!bigger) {
        err->kind = JQC_JPEG_NO_MEMORY;
        err->msg_code = -1;
        snprintf(err->message, sizeof err->message, "Could not allocate %zu bytes for the output", grown);
        longjmp(err->jump, 1);
    }
    dest->buffer = bigger;
    dest->capacity = grown;
    dest->pub.next_output_byte = bigger + old;
    dest->pub.free_in_buffer = grown - old;
    return TRUE;
}

static void jqc_dest_term(j_compress_ptr cinfo) {
    struct jqc_dest_mgr *dest = (struct jqc_dest_mgr *)cinfo->dest;
    dest->length = dest->capacity - dest->pub.free_in_buffer;
}

// `adobe_marker`: -1 keeps libjpeg's default, 0 or 1 forces the Adobe APP14 marker off or on.
static int jqc_encode(const unsigned char *pixels, int width, int height, int channels, int quality, int coding,
                      int adobe_marker, size_t max_bytes, unsigned char **out, size_t *out_length,
                      jqc_jpeg_status *status) {
    jqc_status_clear(status);
    if (!pixels || !out || !out_length || width <= 0 || height <= 0 || width > JPEG_MAX_DIMENSION
        || height > JPEG_MAX_DIMENSION || (channels != 1 && channels != 3 && channels != 4)
        || quality < 1 || quality > 100 || coding < 0 || coding > 2) {
        return jqc_status_simple(status, JQC_JPEG_BAD_ARGUMENT, "Invalid image or quality for encoding.");
    }
    *out = NULL;
    *out_length = 0;
    struct jqc_encoder *encoder = calloc(1, sizeof *encoder);
    if (!encoder) return jqc_status_simple(status, JQC_JPEG_NO_MEMORY, "Could not allocate the encoder.");
    size_t row_bytes = (size_t)width * (size_t)channels;
    size_t initial = row_bytes * (size_t)height / 8 + 4096;
    if (initial > ((size_t)64 << 20)) initial = (size_t)64 << 20;
    if (max_bytes && initial > max_bytes) initial = max_bytes;
    encoder->dest.buffer = malloc(initial);
    if (!encoder->dest.buffer) {
        free(encoder);
        return jqc_status_simple(status, JQC_JPEG_NO_MEMORY, "Could not allocate the output buffer.");
    }
    encoder->dest.capacity = initial;
    encoder->dest.max_bytes = max_bytes;
    encoder->dest.pub.init_destination = jqc_dest_init;
    encoder->dest.pub.empty_output_buffer = jqc_dest_empty;
    encoder->dest.pub.term_destination = jqc_dest_term;
    jqc_error_init(&encoder->err);
    encoder->cinfo.err = &encoder->err.pub;
    if (setjmp(encoder->err.jump)) {
        int kind = jqc_status_fill(status, &encoder->err, encoder->err.kind);
        jpeg_destroy_compress(&encoder->cinfo);
        free(encoder->dest.buffer);
        free(encoder);
        return kind;
    }
    jpeg_create_compress(&encoder->cinfo);
    struct jpeg_compress_struct *cinfo = &encoder->cinfo;
    cinfo->dest = &encoder->dest.pub;
    cinfo->image_width = (JDIMENSION)width;
    cinfo->image_height = (JDIMENSION)height;
    cinfo->input_components = channels;
    cinfo->in_color_space = channels == 1 ? JCS_GRAYSCALE : channels == 3 ? JCS_RGB : JCS_CMYK;
    jpeg_set_defaults(cinfo);
    if (adobe_marker >= 0) cinfo->write_Adobe_marker = adobe_marker ? TRUE : FALSE;
    jpeg_set_quality(cinfo, quality, TRUE);
    if (coding == 1) jpeg_simple_progression(cinfo);
#ifdef C_ARITH_CODING_SUPPORTED
    if (coding == 2) cinfo->arith_code = TRUE;
#endif
    jpeg_start_compress(cinfo, TRUE);
    JSAMPROW rows[16];
    while (cinfo->next_scanline < cinfo->image_height) {
        JDIMENSION first = cinfo->next_scanline;
        JDIMENSION count = cinfo->image_height - first;
        if (count > 16) count = 16;
        for (JDIMENSION i = 0; i < count; i++) rows[i] = (JSAMPROW)(pixels + (size_t)(first + i) * row_bytes);
        (void)jpeg_write_scanlines(cinfo, rows, count);
    }
    jpeg_finish_compress(cinfo);
    jqc_status_fill(status, &encoder->err, JQC_JPEG_OK);
    *out = encoder->dest.buffer;
    *out_length = encoder->dest.length;
    jpeg_destroy_compress(cinfo);
    free(encoder);
    return JQC_JPEG_OK;
}

int jqc_jpeg_encode(const unsigned char *pixels, int width, int height, int channels, int quality,
                    int coding, size_t max_bytes, unsigned char **out, size_t *out_length,
                    jqc_jpeg_status *status) {
    if (channels != 1 && channels != 3) {
        jqc_status_clear(status);
        return jqc_status_simple(status, JQC_JPEG_BAD_ARGUMENT, "Only gray or RGB pixels can be encoded.");
    }
    return jqc_encode(pixels, width, height, channels, quality, coding, -1, max_bytes, out, out_length, status);
}

int jqc_jpeg_encode_cmyk(const unsigned char *pixels, int width, int height, int quality, int adobe_marker,
                         unsigned char **out, size_t *out_length, jqc_jpeg_status *status) {
    return jqc_encode(pixels, width, height, 4, quality, 0, adobe_marker ? 1 : 0, 0, out, out_length, status);
}

void jqc_jpeg_free(void *pointer) { free(pointer); }

int jqc_jpeg_quality_scaling(int quality) { return jpeg_quality_scaling(quality); }

int jqc_jpeg_standard_luminance_table(int quality, unsigned short values[64]) {
    if (!values || quality < 1 || quality > 100) return 0;
    struct jqc_encoder *encoder = calloc(1, sizeof *encoder);
    if (!encoder) return 0;
    jqc_error_init(&encoder->err);
    encoder->cinfo.err = &encoder->err.pub;
    if (setjmp(encoder->err.jump)) {
        jpeg_destroy_compress(&encoder->cinfo);
        free(encoder);
        return 0;
    }
    jpeg_create_compress(&encoder->cinfo);
    encoder->cinfo.in_color_space = JCS_RGB;
    encoder->cinfo.input_components = 3;
    jpeg_set_defaults(&encoder->cinfo);
    jpeg_set_quality(&encoder->cinfo, quality, TRUE);
    for (int i = 0; i < DCTSIZE2; i++) values[i] = encoder->cinfo.quant_tbl_ptrs[0]->quantval[i];
    jpeg_destroy_compress(&encoder->cinfo);
    free(encoder);
    return 1;
}

// MARK: - Orientation

static void jqc_swap_pixels(unsigned char *a, unsigned char *b, int channels) {
    for (int c = 0; c < channels; c++) {
        unsigned char t = a[c];
        a[c] = b[c];
        b[c] = t;
    }
}

void jqc_orient_in_place(unsigned char *pixels, int width, int height, int channels, int orientation) {
    if (!pixels || width <= 0 || height <= 0) return;
    size_t row = (size_t)width * (size_t)channels;
    if (orientation == 2 || orientation == 3) {
        for (int y = 0; y < height; y++) {
            unsigned char *line = pixels + (size_t)y * row;
            unsigned char *left = line, *right = line + (size_t)(width - 1) * (size_t)channels;
            if (channels == 3) {
                for (; left < right; left += 3, right -= 3) {
                    unsigned char r = left[0], g = left[1], b = left[2];
                    left[0] = right[0];
                    left[1] = right[1];
                    left[2] = right[2];
                    right[0] = r;
                    right[1] = g;
                    right[2] = b;
                }
            } else {
                for (; left < right; left += channels, right -= channels) jqc_swap_pixels(left, right, channels);
            }
        }
    }
    if (orientation == 3 || orientation == 4) {
        for (int y = 0; y < height / 2; y++) {
            unsigned char *top = pixels + (size_t)y * row;
            unsigned char *bottom = pixels + (size_t)(height - 1 - y) * row;
            for (size_t i = 0; i < row; i++) {
                unsigned char t = top[i];
                top[i] = bottom[i];
                bottom[i] = t;
            }
        }
    }
}

void jqc_orient_copy(const unsigned char *src, int width, int height, int channels, int orientation,
                     unsigned char *dst) {
    if (!src || !dst || width <= 0 || height <= 0) return;
    size_t total = (size_t)width * (size_t)height * (size_t)channels;
    if (orientation < 5 || orientation > 8) {
        memcpy(dst, src, total);
        jqc_orient_in_place(dst, width, height, channels, orientation);
        return;
    }
    // Output is `height` px wide, `width` px tall: dst(x, y) for x < height, y < width. Along an output
    // row the source walks a column (one source row per step), so the work is done in square tiles to
    // keep both sides in cache.
    const int out_width = height, out_height = width, tile = 32;
    const ptrdiff_t in_row = (ptrdiff_t)width * channels;
    const size_t out_row = (size_t)out_width * (size_t)channels;
    const ptrdiff_t step = (orientation == 5 || orientation == 8) ? in_row : -in_row;
    for (int ty = 0; ty < out_height; ty += tile) {
        int y_end = ty + tile < out_height ? ty + tile : out_height;
        for (int tx = 0; tx < out_width; tx += tile) {
            int x_end = tx + tile < out_width ? tx + tile : out_width;
            for (int y = ty; y < y_end; y++) {
                // Source column: y for 5 and 6, width-1-y for 7 and 8; source row at x = tx: tx for 5 and 8
                // (rotating 90° counter-clockwise / transposing), height-1-tx for 6 and 7.
                int sx = (orientation == 5 || orientation == 6) ? y : width - 1 - y;
                int sy = (orientation == 5 || orientation == 8) ? tx : height - 1 - tx;
                const unsigned char *p = src + (ptrdiff_t)sy * in_row + (ptrdiff_t)sx * channels;
                unsigned char *d = dst + (size_t)y * out_row + (size_t)tx * (size_t)channels;
                if (channels == 3) {
                    for (int x = tx; x < x_end; x++, d += 3, p += step) {
                        d[0] = p[0];
                        d[1] = p[1];
                        d[2] = p[2];
                    }
                } else if (channels == 1) {
                    for (int x = tx; x < x_end; x++, d++, p += step) *d = *p;
                } else {
                    for (int x = tx; x < x_end; x++, d += channels, p += step) memcpy(d, p, (size_t)channels);
                }
            }
        }
    }
}
