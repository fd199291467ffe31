package winexec_test

import (
	"fmt"

	"github.com/winbridge/winbridge/winexec"
)

// A Windows command line that gives a program exactly these arguments under
// the MSVCRT rules, and its parse back.
func ExampleBuildCommandLine() {
	line := winexec.BuildCommandLine(`C:\Program Files\tool.exe`, []string{`say "hi"`, ``, `dir\`})
	fmt.Println(line)
	fmt.Printf("%q\n", winexec.SplitCommandLine(line))
	// Output:
	// "C:\Program Files\tool.exe" "say \"hi\"" "" dir\
	// ["C:\\Program Files\\tool.exe" "say \"hi\"" "" "dir\\"]
}

// Paths between WSL and Windows, as wslpath converts them.
func ExampleWSLToWin() {
	p, _ := winexec.WSLToWin("/mnt/c/Users/me/report.txt")
	fmt.Println(p)
	q, _ := winexec.WinToWSL(`D:\data\x.log`)
	fmt.Println(q)
	// Output:
	// C:\Users\me\report.txt
	// /mnt/d/data/x.log
}
