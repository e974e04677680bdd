#ifndef JQC_JPEG_SHIM_H
#define JQC_JPEG_SHIM_H
#include <stddef.h>

// libjpeg's error handling (setjmp/longjmp) kept entirely in C: no longjmp crosses a Swift frame
// (STYLE.md pitfalls). Every libjpeg call that may fail lives in this shim; each entry point sets its
// own setjmp, and returns a jqc_jpeg_status with a kind and libjpeg's message text. Owned by JQCJPEG
// (issue 8); nothing here includes jpeglib.h so the Swift side never sees libjpeg's types.

/// The outcome of a shim call, judged in C where libjpeg's message codes are known.
typedef enum jqc_jpeg_kind {
    JQC_JPEG_OK = 0,
    /// A fatal libjpeg error not covered below (bad structure, bad tables, …).
    JQC_JPEG_CORRUPT = 1,
    /// JWRN_JPEG_EOF: the data ends before the image does (libjpeg would fill the rest with grey), even
    /// when only the final EOI marker is missing.
    JQC_JPEG_TRUNCATED = 2,
    /// A warning that means damaged pixels: bad Huffman or arithmetic code (JWRN_HUFF_BAD_CODE,
    /// JWRN_ARITH_BAD_CODE), premature end of a data segment (JWRN_HIT_MARKER), JWRN_MUST_RESYNC, an
    /// inconsistent progression (JWRN_BOGUS_PROGRESSION), and JWRN_EXTRANEOUS_DATA once scan decoding has
    /// begun (after jpeg_read_header) or before an RSTn/EOI marker. Other warnings (stray bytes before a
    /// header marker, JWRN_NOT_SEQUENTIAL, JWRN_ADOBE_XFORM, JWRN_BOGUS_ICC, …) are tolerated and counted.
    JQC_JPEG_DAMAGED = 3,
    /// JERR_BAD_PRECISION: 12-bit (or other non-8-bit) samples.
    JQC_JPEG_PRECISION = 4,
    /// JERR_IMAGE_TOO_BIG: a side over libjpeg's 65,500 px limit.
    JQC_JPEG_TOO_BIG = 5,
    /// JERR_NO_SOI / JERR_INPUT_EMPTY: not a JPEG stream at all.
    JQC_JPEG_NOT_JPEG = 6,
    /// JERR_OUT_OF_MEMORY or a failed malloc.
    JQC_JPEG_NO_MEMORY = 7,
    /// The encoded output would exceed the caller's byte cap.
    JQC_JPEG_OUTPUT_TOO_BIG = 8,
    /// The caller passed an impossible argument (null buffer, wrong size, bad scale).
    JQC_JPEG_BAD_ARGUMENT = 9,
} jqc_jpeg_kind;

/// Result of a shim call. `message` is libjpeg's own text for the failure (empty when OK).
/// Warnings judged harmless (header oddities) are counted, and the first is kept as text.
typedef struct jqc_jpeg_status {
    int kind;                    // a jqc_jpeg_kind
    int msg_code;                // libjpeg's J_MESSAGE_CODE of the failure, or -1
    int tolerated_warnings;      // warnings judged harmless so far
    int first_tolerated_code;    // msg_code of the first harmless warning, or -1
    char message[200];           // JMSG_LENGTH_MAX
    char tolerated_message[200];
} jqc_jpeg_status;

/// What jpeg_read_header found.
typedef struct jqc_jpeg_header {
    int width;             // px, as stored (before EXIF orientation)
    int height;            // px
    int components;        // 1 gray, 3 YCbCr/RGB, 4 CMYK/YCCK
    int color_space;       // 1 gray, 2 RGB, 3 YCbCr, 4 CMYK, 5 YCCK, 0 unknown (libjpeg J_COLOR_SPACE)
    int data_precision;    // bits per sample (8; 12 is refused)
    int progressive;       // 1 for SOF2/SOF10
    int arithmetic;        // 1 for SOF9..SOF11
    int saw_adobe_marker;  // 1 when an Adobe APP14 marker was seen
    int adobe_transform;   // the APP14 transform byte (0 plain, 1 YCbCr, 2 YCCK)
    int app1_count;        // how many APP1 segments were saved (EXIF candidates)
} jqc_jpeg_header;

/// An open decoding session over an in-memory JPEG. The bytes must outlive the session.
typedef struct jqc_decoder jqc_decoder;

/// Creates a session reading `length` bytes at `data`; NULL when out of memory.
jqc_decoder *jqc_decoder_create(const unsigned char *data, size_t length);
/// Ends a session and frees everything it holds (safe on NULL).
void jqc_decoder_destroy(jqc_decoder *decoder);
/// Reads markers up to the first scan (APP1 segments saved). Returns the status kind.
int jqc_decoder_read_header(jqc_decoder *decoder, jqc_jpeg_header *header, jqc_jpeg_status *status);
/// The `index`th saved APP1 segment (without its marker and length bytes); 0 when absent.
int jqc_decoder_app1(jqc_decoder *decoder, int index, const unsigned char **data, size_t *length);
/// Copies quantisation table `slot` (0 = luminance), in natural (row-major) order; 0 when absent.
int jqc_decoder_quant_table(jqc_decoder *decoder, int slot, unsigned short values[64]);
/// Chooses DCT scaling 1/`scale_denom` (1, 2, 4 or 8) and the output colour (gray stays gray, all
/// else RGB) and reports the output size; nothing is decoded yet. Returns the status kind.
int jqc_decoder_prepare(jqc_decoder *decoder, int scale_denom, int *out_width, int *out_height,
                        int *out_channels, jqc_jpeg_status *status);
/// Decodes every scanline into `buffer` (rows packed, out_width * out_channels bytes each, `size`
/// bytes in all); CMYK/YCCK converted to RGB. CMYK samples are always read as Adobe-inverted (255 = no
/// ink), with or without an APP14 marker, as browsers and Pillow do (issue 18). Returns the status kind.
int jqc_decoder_decode(jqc_decoder *decoder, unsigned char *buffer, size_t size, jqc_jpeg_status *status);

/// How jqc_decoder_transcode moves samples from the decoder to the encoder (issue 17).
typedef enum jqc_transcode_path {
    /// Downsampled YCbCr 4:2:0 planes straight from the decoder's IDCT into the encoder's DCT
    /// (jpeg_read_raw_data → jpeg_write_raw_data): no upsampling, colour conversion or downsampling.
    /// Orientations 1 and 2 at full scale from a 4:2:0 YCbCr source; streamed in strips.
    JQC_PATH_RAW_STREAM = 1,
    /// Scanlines streamed in strips (orientations 1 and 2: row order kept, a mirror is done per row).
    JQC_PATH_PIXEL_STREAM = 2,
    /// One decoded image held whole, then encoded in turned strips (orientations 3…8: the first output
    /// row needs the last decoded one).
    JQC_PATH_FULL_BUFFER = 3,
    /// The 4:2:0 planes held whole (1.5 bytes a pixel) and encoded in turned strips, plane by plane
    /// (orientations 3…8 at full scale, when every flip keeps chroma on its luma pairs: an even width for a
    /// left–right flip, an even height for a top–bottom one).
    JQC_PATH_RAW_FULL_BUFFER = 4,
} jqc_transcode_path;

/// What jqc_decoder_transcode does.
typedef struct jqc_transcode_options {
    int scale_denom;   // DCT scaling while decoding: 1, 2, 4 or 8
    int orientation;   // EXIF orientation 1…8, applied to the pixels once
    int quality;       // 1…100 (libjpeg's standard tables scaled, baseline Huffman, as cjpeg -quality)
    size_t max_bytes;  // fail with JQC_JPEG_OUTPUT_TOO_BIG once the output would exceed this (0 = no cap)
    int threads;       // 2: decode and encode overlap on two threads when the path streams; 1: one thread
    int pass_through;  // 1: 4:2:0 YCbCr at full scale goes plane to plane (JQC_PATH_RAW_*); 0: every colour
                       // source goes through RGB scanlines, exactly as djpeg | cjpeg (the reference for tests)
} jqc_transcode_options;

/// What jqc_decoder_transcode produced.
typedef struct jqc_transcode_result {
    unsigned char *jpeg;        // the JFIF output, malloc'ed (free with jqc_jpeg_free); NULL on failure
    size_t length;              // its size in bytes
    int width;                  // output px, after scaling and orientation
    int height;
    int channels;               // 1 gray, 3 colour
    int decoded_width;          // px after scaling, before orientation
    int decoded_height;
    int path;                   // a jqc_transcode_path
    int threads;                // threads that ran (1 or 2)
    size_t sample_buffer_bytes; // bytes of decoded samples held at once (strip ring or whole image)
} jqc_transcode_result;

/// Decodes the session's image and re-encodes it as a baseline JFIF JPEG in one pass, applying DCT
/// scaling and the EXIF orientation; no APP1 (EXIF) is written. Read the header first. CMYK/YCCK become
/// RGB (always read as Adobe-inverted). Every libjpeg call runs under a setjmp in the thread that makes
/// it; a failure on either side stops the other. Returns the status kind (decoder warnings classified as
/// in jqc_decoder_decode; JQC_JPEG_OUTPUT_TOO_BIG for the cap).
int jqc_decoder_transcode(jqc_decoder *decoder, const jqc_transcode_options *options,
                          jqc_transcode_result *result, jqc_jpeg_status *status);

/// Encodes packed rows (`channels` 1 = gray, 3 = RGB) at `quality` (1…100) into a malloc'ed buffer
/// (`*out`, `*out_length`; free with jqc_jpeg_free). `coding`: 0 baseline Huffman, 1 progressive, 2
/// arithmetic. No APP1 (EXIF) is written. Fails with JQC_JPEG_OUTPUT_TOO_BIG once the output would
/// exceed `max_bytes` (0 = no cap).
int jqc_jpeg_encode(const unsigned char *pixels, int width, int height, int channels, int quality,
                    int coding, size_t max_bytes, unsigned char **out, size_t *out_length,
                    jqc_jpeg_status *status);
/// Encodes 4-component CMYK rows exactly as given (no inversion), with or without the Adobe APP14 marker
/// (which tells readers the values are stored inverted). For tests of the CMYK decode paths.
int jqc_jpeg_encode_cmyk(const unsigned char *pixels, int width, int height, int quality, int adobe_marker,
                         unsigned char **out, size_t *out_length, jqc_jpeg_status *status);
/// Frees a buffer from jqc_jpeg_encode or jqc_jpeg_encode_cmyk.
void jqc_jpeg_free(void *pointer);

/// libjpeg's jpeg_quality_scaling: quality 1…100 → percentage scale for the standard tables.
int jqc_jpeg_quality_scaling(int quality);
/// The luminance table libjpeg writes for `quality` (jpeg_set_quality, baseline), natural order.
int jqc_jpeg_standard_luminance_table(int quality, unsigned short values[64]);

/// Applies EXIF orientation 2, 3 or 4 in place (a mirror or 180° turn keeps the size).
void jqc_orient_in_place(unsigned char *pixels, int width, int height, int channels, int orientation);
/// Writes the source turned per EXIF orientation 1…8 into `dst` (size width*height*channels; for
/// 5…8 the result is `height` px wide and `width` px tall).
void jqc_orient_copy(const unsigned char *src, int width, int height, int channels, int orientation,
                     unsigned char *dst);

#endif
