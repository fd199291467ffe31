/* argvc prints its arguments (after argv[0]) as a JSON array of hex
 * strings of their UTF-8 bytes, so the test compares exactly. It uses the
 * MSVCRT command-line parser through wmain (-municode). */
#include <windows.h>
#include <stdio.h>
#include <fcntl.h>
#include <io.h>

int wmain(int argc, wchar_t **argv) {
	_setmode(_fileno(stdout), _O_BINARY);
	fputs("[", stdout);
	for (int i = 1; i < argc; i++) {
		char buf[65536];
		int n = WideCharToMultiByte(CP_UTF8, 0, argv[i], -1, buf, sizeof buf, NULL, NULL);
		if (i > 1) fputs(",", stdout);
		fputs("\"", stdout);
		for (int j = 0; j < n - 1; j++) printf("%02x", (unsigned char)buf[j]);
		fputs("\"", stdout);
	}
	fputs("]\n", stdout);
	return 0;
}
