/* png_probe FILE X Y [X Y ...]: prints "X Y R G B" (0..255) of each pixel of a PNG, read back
 * with cairo (tests/replay/pictures.sh checks rendered pictures by pixels, never by bytes).
 * Exit 1 when the file cannot be read or a pixel is outside the picture.
 * SPDX-License-Identifier: MIT
 */
#include <cairo.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	if (argc < 4 || argc % 2 != 0) {
		fprintf(stderr, "usage: png_probe FILE X Y [X Y ...]\n");
		return 2;
	}
	cairo_surface_t *s = cairo_image_surface_create_from_png(argv[1]);
	if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
		fprintf(stderr, "png_probe: %s: %s\n", argv[1],
		        cairo_status_to_string(cairo_surface_status(s)));
		cairo_surface_destroy(s);
		return 1;
	}
	cairo_surface_flush(s);
	int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
	int stride = cairo_image_surface_get_stride(s);
	const unsigned char *data = cairo_image_surface_get_data(s);
	int status = 0;
	for (int i = 2; i + 1 < argc; i += 2) {
		int x = atoi(argv[i]), y = atoi(argv[i + 1]);
		if (x < 0 || y < 0 || x >= w || y >= h) {
			fprintf(stderr, "png_probe: (%d, %d) outside the %dx%d picture\n", x, y, w, h);
			status = 1;
			continue;
		}
		/* RGB24 / ARGB32: one native-endian 32-bit word per pixel, 0xAARRGGBB */
		uint32_t p = *(const uint32_t *)(const void *)(data + (size_t)y * stride + (size_t)x * 4);
		printf("%d %d %u %u %u\n", x, y, (p >> 16) & 255u, (p >> 8) & 255u, p & 255u);
	}
	cairo_surface_destroy(s);
	return status;
}
