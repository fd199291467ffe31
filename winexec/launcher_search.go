package winexec

import (
	"fmt"
	"os"
	"strings"
)

// checkLauncherName refuses a program name that a launcher (wine) would
// find in the working directory. Wine, like CreateProcess, searches the
// current directory before its system directories and PATH, and a
// launcher's current directory is the request's: a model able to put an
// hdc.exe into some directory could name that directory as cwd and run
// it in place of the allowed hdc.exe. Wine maps Windows names onto Unix
// files ignoring case and appends ".exe" to a name without an extension,
// so any entry equal to the name or name.exe ignoring case counts. A file
// created between this check and the start is not seen: use absolute
// paths in ALLOW_EXE with a launcher where files can appear in working
// directories. The job helper's CreateProcess searches the same way, so
// the name in its command line is checked too. dir is the Linux directory
// the launcher starts in ("" for ours).
func checkLauncherName(exe, dir string) error {
	if strings.ContainsAny(exe, `\/`) {
		return nil // a path: not searched
	}
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return fmt.Errorf("%w %q: cannot read the working directory to rule out a planted copy: %v", ErrInvalidExe, exe, err)
		}
		dir = wd
	}
	names, err := readDirNames(dir)
	if err != nil {
		// The start fails in a directory we cannot read, or runs a
		// program we could not rule out: refuse.
		return fmt.Errorf("%w %q: cannot list the working directory %s to rule out a planted copy: %v", ErrInvalidExe, exe, dir, err)
	}
	want := []string{exe}
	if !strings.Contains(exe, ".") {
		want = append(want, exe+".exe")
	}
	for _, n := range names {
		for _, w := range want {
			if strings.EqualFold(n, w) {
				return fmt.Errorf("%w %q: the working directory %s holds %s, which the launcher would run in place of the program on its search path", ErrInvalidExe, exe, dir, n)
			}
		}
	}
	return nil
}

func readDirNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}
