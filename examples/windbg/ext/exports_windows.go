package main

/*
#include <stdlib.h>
#include "engine_windows.h"
*/
import "C"

import (
	"os"
	"unsafe"
)

// The exports WinDbg looks for (docs/WINDBG.md lists them, and the export
// check refuses a DLL without them): the three lifecycle functions, and
// the extension commands !mcp and !help. They convert between C and Go;
// the lifecycle itself is extension's.

var ext = &extension{
	open: func(cfg Config) func() (engine, error) {
		return func() (engine, error) { return openDbgEngine(cfg.MaxOutput) }
	},
	getenv: os.Getenv,
	report: printOwn,
}

const (
	sOK    = 0
	sFalse = 1
	eFail  = -0x7FFFBFFB // E_FAIL, 0x80004005, as the signed HRESULT
)

// DebugExtensionInitialize is called by .load. It pins the module, then
// starts the service; a failure is reported in the debugger's window and
// fails the load.
//
//export DebugExtensionInitialize
func DebugExtensionInitialize(version *C.ULONG, flags *C.ULONG) C.HRESULT {
	*version = C.ULONG(1 << 16) // DEBUG_EXTENSION_VERSION(1, 0): major 1, minor 0
	*flags = 0
	// A Go runtime cannot be unloaded from a process (golang/go#11100):
	// the module stays, and .unload only stops the service.
	if C.pinModule() == 0 {
		printOwn("mcp: could not pin the module\n")
		return eFail
	}
	if ext.start() != nil {
		return eFail
	}
	return sOK
}

// DebugExtensionUninitialize is called by .unload: it stops the service
// and releases every engine object the extension created.
//
//export DebugExtensionUninitialize
func DebugExtensionUninitialize() {
	ext.uninitialize()
}

// DebugExtensionCanUnload is S_OK once the service is stopped and its
// worker has released the engine, S_FALSE before. The module itself stays
// pinned either way.
//
//export DebugExtensionCanUnload
func DebugExtensionCanUnload() C.HRESULT {
	if ext.canUnload() {
		return sOK
	}
	return sFalse
}

// mcp is the !mcp command. It prints through the client the debugger
// passes, on the debugger's thread.
//
//export mcp
func mcp(client *C.IDebugClient, args *C.char) C.HRESULT {
	out, ok := ext.command(C.GoString(args))
	printTo(client, out)
	if !ok {
		return eFail
	}
	return sOK
}

// help is the !help command.
//
//export help
func help(client *C.IDebugClient, args *C.char) C.HRESULT {
	return printTo(client, usage)
}

func printTo(client *C.IDebugClient, text string) C.HRESULT {
	cs := C.CString(text)
	defer C.free(unsafe.Pointer(cs))
	return C.extPrint(client, cs)
}

// printOwn prints when no worker exists (a failed start): through a
// client of its own, made and released on this, the debugger's, thread.
func printOwn(text string) {
	var e C.engine
	if C.engOpen(&e, 1) != 0 {
		return
	}
	cs := C.CString(text)
	defer C.free(unsafe.Pointer(cs))
	C.engPrint(&e, cs)
	C.engClose(&e)
}
