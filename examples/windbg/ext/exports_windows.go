package main

/*
#include <stdlib.h>
#include "engine_windows.h"
*/
import "C"

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"unsafe"
)

// The exports WinDbg looks for (docs/WINDBG.md lists them, and the export
// check refuses a DLL without them): the three lifecycle functions, and
// the extension commands !mcp and !help.

var (
	mu       sync.Mutex
	current  *service
	lastErr  error
	draining *service // stopped, but its worker had not ended in time
)

// DebugExtensionInitialize is called by .load. It pins the module, then
// starts the service; a failure is reported to the debugger, which then
// refuses the load.
//
//export DebugExtensionInitialize
func DebugExtensionInitialize(version *C.ULONG, flags *C.ULONG) C.HRESULT {
	*version = C.ULONG(1<<16 | 0) // DEBUG_EXTENSION_VERSION(1, 0)
	*flags = 0
	// A Go runtime cannot be unloaded from a process (golang/go#11100):
	// the module stays, and .unload only stops the service.
	if C.pinModule() == 0 {
		return C.HRESULT(eFail)
	}
	if err := start(); err != nil {
		return C.HRESULT(eFail)
	}
	return 0
}

// DebugExtensionUninitialize is called by .unload: it stops the service
// and releases every engine object the extension created. Called from a
// command the extension itself runs (a .unload let through with
// WINDBG_MCP_ALLOW_SESSION_END=1), it cannot wait for its own worker: the
// service then stops in the background.
//
//export DebugExtensionUninitialize
func DebugExtensionUninitialize() {
	if err := stop(); errors.Is(err, errReentrant) {
		mu.Lock()
		s := current
		current, draining = nil, s
		mu.Unlock()
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), s.stopTimeout())
			defer cancel()
			_ = s.stop(ctx)
		}()
	}
}

// DebugExtensionCanUnload reports whether the extension may be unloaded:
// S_OK once the service is stopped and its worker has released the
// engine, S_FALSE before. The module itself stays pinned either way.
//
//export DebugExtensionCanUnload
func DebugExtensionCanUnload() C.HRESULT {
	mu.Lock()
	defer mu.Unlock()
	if current != nil || draining != nil && !draining.w.ended() {
		return C.HRESULT(sFalse)
	}
	return 0
}

// errReentrant refuses to stop the service from its own worker thread.
var errReentrant = errors.New("called from a command the extension itself is running; it cannot wait for itself")

// mcp is the !mcp command: status (the default), start, stop, help. It
// prints through the client the debugger passes, on the debugger's thread.
//
//export mcp
func mcp(client *C.IDebugClient, args *C.char) C.HRESULT {
	out, hr := command(C.GoString(args))
	cs := C.CString(out)
	defer C.free(unsafe.Pointer(cs))
	C.extPrint(client, cs)
	return C.HRESULT(hr)
}

// help is the !help command.
//
//export help
func help(client *C.IDebugClient, args *C.char) C.HRESULT {
	cs := C.CString(usage)
	defer C.free(unsafe.Pointer(cs))
	return C.extPrint(client, cs)
}

const (
	sFalse = 1
	eFail  = -0x7FFFBFFB // E_FAIL, 0x80004005, as the signed HRESULT
)

func start() error {
	mu.Lock()
	defer mu.Unlock()
	if current != nil {
		return nil
	}
	if draining != nil && !draining.w.ended() {
		lastErr = errors.New("the previous service is still stopping (its worker is busy with a command)")
		printErr(lastErr)
		return lastErr
	}
	draining = nil
	cfg, err := configFromEnv(os.Getenv)
	if err == nil {
		current, err = startService(cfg, func() (engine, error) { return openDbgEngine(cfg.MaxOutput) })
	}
	lastErr = err
	if err != nil {
		printErr(err)
	}
	return err
}

func stop() error {
	mu.Lock()
	defer mu.Unlock()
	if current == nil {
		return nil
	}
	if current.w.onWorkerThread() {
		return errReentrant
	}
	ctx, cancel := context.WithTimeout(context.Background(), current.stopTimeout())
	defer cancel()
	err := current.stop(ctx)
	if err != nil {
		draining = current
	}
	current = nil
	return err
}

// printErr reports a failure to start: no worker exists then, so it
// prints through a client of its own, made on this (the debugger's)
// thread.
func printErr(err error) {
	var e C.engine
	if C.engOpen(&e, 1) != 0 {
		return
	}
	cs := C.CString("mcp: " + err.Error() + "\n")
	defer C.free(unsafe.Pointer(cs))
	C.engPrint(&e, cs)
	C.engClose(&e)
}

const usage = `!mcp          the state of the MCP service (its URL and tool)
!mcp start    start the service (after !mcp stop); settings are read again from the environment
!mcp stop     stop the service; .unload does the same
!mcp help     this text
`

// command runs an !mcp subcommand and returns its text and status.
func command(args string) (string, C.HRESULT) {
	switch strings.TrimSpace(args) {
	case "", "status":
		mu.Lock()
		defer mu.Unlock()
		if current == nil {
			if lastErr != nil {
				return fmt.Sprintf("mcp: stopped (last start failed: %v)\n", lastErr), 0
			}
			return "mcp: stopped\n", 0
		}
		return fmt.Sprintf("mcp: serving %s (tool %s)\n", current.url, current.cfg.toolName()), 0
	case "start":
		if err := start(); err != nil {
			return fmt.Sprintf("mcp: start failed: %v\n", err), C.HRESULT(eFail)
		}
		return command("status")
	case "stop":
		if err := stop(); err != nil {
			return fmt.Sprintf("mcp: stopped, with errors: %v\n", err), C.HRESULT(eFail)
		}
		return "mcp: stopped\n", 0
	case "help":
		return usage, 0
	default:
		return "mcp: unknown subcommand\n" + usage, C.HRESULT(eFail)
	}
}
