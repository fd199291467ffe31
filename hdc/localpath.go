package hdc

import (
	"fmt"
	"slices"
	"strings"

	"github.com/winbridge/winbridge/internal/dosdevice"
)

// checkWindowsLocal refuses a Windows-form local path that is not an
// absolute drive path or a path on WSL's own shares. hdc.exe opens the
// path as written: a network share (\\host\share\x, with either slash)
// makes Windows connect and authenticate to that host, which hands the
// account's credentials to whoever runs it; a device path (\\?\, \\.\,
// \??\) reaches past the file system; a relative one (tools\x, \x, C:x)
// depends on hdc's working directory. winexec refuses such a working
// directory for the same reasons. So is a drive path whose last component
// is a DOS device name (C:\tmp\COM1.txt): see dosdevice.Path.
func checkWindowsLocal(p string) error {
	isSep := func(c byte) bool { return c == '\\' || c == '/' }
	switch {
	case len(p) >= 3 && p[1] == ':' && isASCIILetter(p[0]) && isSep(p[2]):
		if dosdevice.Path(p) {
			return fmt.Errorf("%q ends in a DOS device name, which Windows opens as the device, not a file", p)
		}
		return nil
	case len(p) >= 2 && isSep(p[0]) && isSep(p[1]):
		parts := strings.FieldsFunc(p[2:], func(r rune) bool { return r == '\\' || r == '/' })
		switch {
		case len(parts) > 0 && (parts[0] == "?" || parts[0] == "."):
			return fmt.Errorf("%q is a device path; give an absolute path such as C:\\dir\\file", p)
		case len(parts) < 2 || !isWSLHost(parts[0]):
			return fmt.Errorf("%q is a network share: Windows would connect and authenticate to that host; "+
				"only drive paths and \\\\wsl.localhost\\ or \\\\wsl$\\ are accepted", p)
		}
		for _, c := range parts {
			if c == "." || c == ".." {
				return fmt.Errorf("%q: a \".\" or \"..\" component in a share path", p)
			}
		}
		return nil
	case strings.HasPrefix(p, `\??\`):
		return fmt.Errorf("%q is a device path; give an absolute path such as C:\\dir\\file", p)
	}
	return fmt.Errorf("%q is a relative Windows path; give an absolute path such as C:\\dir\\file", p)
}

// isWSLHost compares in ASCII case only, as Windows does: its upper-case
// table maps no other character to an ASCII letter, but strings.EqualFold
// takes U+017F (long s) for "s", which let \\wſl.localhost\ pass as WSL's
// share though Windows would connect to a host of that name.
func isWSLHost(h string) bool {
	h = strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}, h)
	return h == "wsl.localhost" || h == "wsl$"
}

func isASCIILetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

// localPathVerbs are the commands whose arguments after the verb include
// a path on this machine that hdc opens: file send reads it, file recv,
// keygen and bugreport write it, install, sideload, update and flash read
// a package or image.
var localPathVerbs = []string{"file send", "file recv", "install", "sideload", "keygen", "bugreport", "update", "flash"}

// localPathRisk returns why a Windows hdc.exe would open a network share
// or a device path for c, a command of localPathVerbs, or "".
func localPathRisk(c Command) string {
	// hdc opens the words of its command line, not the elements: file
	// send/recv and install split the line again
	// (Base::SplitCommandToArgs), which drops double quotes and splits at
	// tabs, so `"\\host\s\x"` or "a<TAB>\\host\s\x" is a share there.
	// keygen and bugreport take the rest of the line as it is: the
	// elements. Check both.
	words := splitWords(c.Line)
	for _, a := range append(slices.Clone(c.Rest), words...) {
		if why := remoteOrDevicePath(a); why != "" {
			return why
		}
	}
	// hdc.exe joins a path it deems relative (neither "X:\" at 1 nor a
	// leading "\\", base.cpp IsAbsolutePath) to the -cwd value as text, so
	// "-cwd \" and "\host\share\x" open \\host\share\x: a -cwd must be a
	// directory no text can turn into a share.
	cwds := []string{""} // hdc's own working directory ends in a separator
	for i, w := range words {
		if w == "-cwd" && i+1 < len(words) {
			if err := checkWindowsLocal(words[i+1]); err != nil {
				return fmt.Sprintf("-cwd %q: %v; hdc.exe joins relative paths to it as text, which can make a network share or device path", words[i+1], err)
			}
			cwds = append(cwds, words[i+1])
		}
	}
	// A path naming a DOS device (COM1, NUL.txt, "CON "), alone or
	// completed by the -cwd text hdc.exe joins it to ("-cwd C:\x\CO" and
	// "N"), opens the device, not a file. Every element and word is
	// checked, joined to every -cwd; the device-side path cannot be told
	// apart here, so a device file named like a DOS device is refused too.
	for _, a := range append(slices.Clone(c.Rest), words...) {
		for _, d := range cwds {
			if dosdevice.Path(d + a) {
				return fmt.Sprintf("%q ends in a DOS device name, which Windows opens as the device, not a file", d+a)
			}
		}
	}
	return ""
}

// remoteOrDevicePath returns why p, an argument of such a command, must
// not reach a Windows hdc.exe: a network share (either slash) other than
// WSL's own, or a device path. Relative and drive paths pass: hdc_run
// hands them to hdc as given.
func remoteOrDevicePath(p string) string {
	isSep := func(c byte) bool { return c == '\\' || c == '/' }
	if strings.HasPrefix(p, `\??\`) || len(p) >= 2 && isSep(p[0]) && isSep(p[1]) {
		if err := checkWindowsLocal(p); err != nil {
			return err.Error()
		}
	}
	return ""
}
