// Command hdc is the fake hdc of the hdc package's tests; see package
// fakehdc.
package main

import (
	"os"

	"github.com/winbridge/winbridge/internal/fakehdc"
)

func main() { os.Exit(fakehdc.Main(os.Args[1:], os.Stdout, os.Stderr)) }
