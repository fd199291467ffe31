//go:build windows

package winjob

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/windows"
)

// A Job is a Job Object that kills its processes when its last handle is
// closed, unless Release was called.
type Job struct{ h windows.Handle }

// New creates a kill-on-close job. Breakaway (CREATE_BREAKAWAY_FROM_JOB)
// is not allowed: neither limit flag that permits it is set.
func New() (*Job, error) {
	h, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return nil, fmt.Errorf("CreateJobObject: %w", err)
	}
	j := &Job{h: h}
	if err := j.setLimits(windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE); err != nil {
		windows.CloseHandle(h)
		return nil, err
	}
	return j, nil
}

func (j *Job) setLimits(flags uint32) error {
	var info windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION
	info.BasicLimitInformation.LimitFlags = flags
	_, err := windows.SetInformationJobObject(j.h, windows.JobObjectExtendedLimitInformation,
		uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info)))
	if err != nil {
		return fmt.Errorf("SetInformationJobObject: %w", err)
	}
	return nil
}

// Assign puts the process into the job; its later children join it.
func (j *Job) Assign(proc windows.Handle) error {
	if err := windows.AssignProcessToJobObject(j.h, proc); err != nil {
		return fmt.Errorf("AssignProcessToJobObject: %w", err)
	}
	return nil
}

// AssignPID is Assign for a process ID.
func (j *Job) AssignPID(pid int) error {
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, uint32(pid))
	if err != nil {
		return fmt.Errorf("OpenProcess: %w", err)
	}
	defer windows.CloseHandle(h)
	return j.Assign(h)
}

// Terminate kills every process in the job.
func (j *Job) Terminate(code uint32) error {
	if err := windows.TerminateJobObject(j.h, code); err != nil {
		return fmt.Errorf("TerminateJobObject: %w", err)
	}
	return nil
}

// Release clears kill-on-close and closes the job: the processes still in
// it (a daemon the program started) keep running.
func (j *Job) Release() error {
	err := j.setLimits(0)
	windows.CloseHandle(j.h)
	return err
}

// Close closes the job, which kills every process still in it.
func (j *Job) Close() error { return windows.CloseHandle(j.h) }

var procNtResumeProcess = windows.NewLazySystemDLL("ntdll.dll").NewProc("NtResumeProcess")

// ResumeProcess resumes every thread of a process created suspended, for
// callers (os/exec) that have no handle to its main thread.
func ResumeProcess(pid int) error {
	h, err := windows.OpenProcess(windows.PROCESS_SUSPEND_RESUME, false, uint32(pid))
	if err != nil {
		return fmt.Errorf("OpenProcess: %w", err)
	}
	defer windows.CloseHandle(h)
	if st, _, _ := procNtResumeProcess.Call(uintptr(h)); st != 0 {
		return fmt.Errorf("NtResumeProcess: %w", windows.NTStatus(st))
	}
	return nil
}
