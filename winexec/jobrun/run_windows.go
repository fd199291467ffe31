//go:build windows

package main

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/winbridge/winbridge/winexec/internal/winjob"
)

// run starts line suspended, puts it into a kill-on-close job, resumes
// it, waits, and releases the job when the program ended by itself.
func run(line string) (uint32, error) {
	job, err := winjob.New()
	if err != nil {
		return 0, err
	}
	si := &windows.StartupInfo{Flags: windows.STARTF_USESTDHANDLES}
	si.Cb = uint32(unsafe.Sizeof(*si))
	for _, s := range []struct {
		std uint32
		dst *windows.Handle
	}{{windows.STD_INPUT_HANDLE, &si.StdInput}, {windows.STD_OUTPUT_HANDLE, &si.StdOutput}, {windows.STD_ERROR_HANDLE, &si.StdErr}} {
		h, err := windows.GetStdHandle(s.std)
		if err != nil || h == 0 || h == windows.InvalidHandle {
			continue
		}
		// The program inherits our standard handles.
		_ = windows.SetHandleInformation(h, windows.HANDLE_FLAG_INHERIT, windows.HANDLE_FLAG_INHERIT)
		*s.dst = h
	}
	cl, err := windows.UTF16PtrFromString(line)
	if err != nil {
		job.Close()
		return 0, err
	}
	var pi windows.ProcessInformation
	if err := windows.CreateProcess(nil, cl, nil, nil, true, windows.CREATE_SUSPENDED|windows.CREATE_UNICODE_ENVIRONMENT, nil, nil, si, &pi); err != nil {
		job.Close()
		return 0, fmt.Errorf("CreateProcess: %w", err)
	}
	defer windows.CloseHandle(pi.Thread)
	defer windows.CloseHandle(pi.Process)
	if err := job.Assign(pi.Process); err != nil {
		// Never run a program outside the job: the whole point.
		windows.TerminateProcess(pi.Process, 127)
		job.Close()
		return 0, err
	}
	if _, err := windows.ResumeThread(pi.Thread); err != nil {
		job.Close() // kills the suspended program
		return 0, fmt.Errorf("ResumeThread: %w", err)
	}
	if _, err := windows.WaitForSingleObject(pi.Process, windows.INFINITE); err != nil {
		job.Close()
		return 0, fmt.Errorf("WaitForSingleObject: %w", err)
	}
	var code uint32
	if err := windows.GetExitCodeProcess(pi.Process, &code); err != nil {
		job.Close()
		return 0, fmt.Errorf("GetExitCodeProcess: %w", err)
	}
	// The program ended by itself: what it left running (hdc's server)
	// survives.
	if err := job.Release(); err != nil {
		fmt.Fprintln(os.Stderr, "jobrun: releasing the job:", err)
	}
	return code, nil
}
