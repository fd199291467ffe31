// Command exportcheck fails unless a DLL exports what WinDbg needs from
// the extension: DebugExtensionInitialize, DebugExtensionUninitialize,
// DebugExtensionCanUnload and the mcp and help commands. Run it on the
// built DLL before shipping it:
//
//	go run ./examples/windbg/ext/exportcheck windbgext.dll
package main

import (
	"fmt"
	"os"

	"github.com/winbridge/winbridge/internal/peexports"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: exportcheck FILE.dll")
		os.Exit(2)
	}
	if err := peexports.Check(os.Args[1], peexports.WinDbgExtension); err != nil {
		fmt.Fprintln(os.Stderr, "exportcheck: FAIL:", err)
		os.Exit(1)
	}
	fmt.Println("exportcheck: ok:", os.Args[1])
}
