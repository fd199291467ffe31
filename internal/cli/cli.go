package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime/debug"
)

// Version is the release of the binaries, set at build time with
// -ldflags "-X github.com/winbridge/winbridge/internal/cli.Version=v1.2.3".
// Without it, Version reports the module version or VCS revision that the
// Go toolchain recorded.
var Version = ""

// VersionString is "NAME VERSION (GOVERSION)".
func VersionString(name string) string {
	v := Version
	bi, ok := debug.ReadBuildInfo()
	if v == "" && ok {
		v = bi.Main.Version
		if v == "" || v == "(devel)" {
			v = "devel"
			for _, s := range bi.Settings {
				if s.Key == "vcs.revision" && len(s.Value) >= 12 {
					v += " " + s.Value[:12]
				}
			}
		}
	}
	if v == "" {
		v = "devel"
	}
	gov := ""
	if ok {
		gov = " (" + bi.GoVersion + ")"
	}
	return name + " " + v + gov
}

// Parse parses args with fs. The flag package prints a bad flag's error
// and then the usage, and the caller would print the error again; here
// nothing is printed for a bad flag (the caller prints the returned error
// once, with its prefix) and -help prints the usage to w.
func Parse(fs *flag.FlagSet, args []string, w io.Writer) error {
	usage := fs.Usage
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.SetOutput(w)
	fs.Usage = usage
	if errors.Is(err, flag.ErrHelp) {
		if usage != nil {
			usage()
		} else {
			fmt.Fprintf(w, "Usage of %s:\n", fs.Name())
			fs.PrintDefaults()
		}
		return err
	}
	if err != nil {
		return fmt.Errorf("%w (-help lists the flags)", err)
	}
	return nil
}
