package wintest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Go 1.24+ Windows binaries need ProcessPrng from bcryptprimitives.dll,
// which wine 8 lacks; the runtime loads it from system32 only. The stub
// below forwards to RtlGenRandom and is installed into the private prefix,
// so cross-compiled Go test programs start under wine.
const bcryptStubC = `#include <windows.h>
#include <ntsecapi.h>
BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T n) {
	while (n > 0) {
		ULONG k = n > 0x10000000 ? 0x10000000 : (ULONG)n;
		if (!RtlGenRandom(data, k)) return FALSE;
		data += k;
		n -= k;
	}
	return TRUE;
}
`

const bcryptStubDef = "LIBRARY bcryptprimitives\nEXPORTS\nProcessPrng\n"

// installBcryptStub builds the stub with mingw and copies it into the
// prefix's system32 unless wine already provides the DLL.
func installBcryptStub(cc, work, prefix string) error {
	dst := filepath.Join(prefix, "drive_c", "windows", "system32", "bcryptprimitives.dll")
	if _, err := os.Stat(dst); err == nil {
		return nil
	}
	src := filepath.Join(work, "bcryptstub.c")
	def := filepath.Join(work, "bcryptstub.def")
	if err := os.WriteFile(src, []byte(bcryptStubC), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(def, []byte(bcryptStubDef), 0o644); err != nil {
		return err
	}
	if b, err := exec.Command(cc, "-shared", "-O1", "-o", dst, src, def, "-ladvapi32").CombinedOutput(); err != nil {
		return fmt.Errorf("building bcryptprimitives stub: %v\n%s", err, b)
	}
	return nil
}
