package main

/*
#cgo LDFLAGS: -ldbgeng
#include <stdlib.h>
#include "engine_windows.h"
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// HRESULT is a failure status of a dbgeng call.
type HRESULT uint32

func (h HRESULT) Error() string { return fmt.Sprintf("HRESULT 0x%08X", uint32(h)) }

// dbgEngine is the engine through dbgeng's COM interfaces, opened by the
// worker on its own thread (see openDbgEngine).
type dbgEngine struct {
	e *C.engine // C memory: the COM pointers must not live in Go memory
}

// openDbgEngine creates the worker's clients; call it on the worker's
// locked thread.
func openDbgEngine(maxOutput int) (engine, error) {
	e := (*C.engine)(C.calloc(1, C.size_t(unsafe.Sizeof(C.engine{}))))
	if hr := C.engOpen(e, C.size_t(maxOutput)); hr != 0 {
		C.free(unsafe.Pointer(e))
		return nil, fmt.Errorf("DebugCreate and the capturing client: %w", HRESULT(hr))
	}
	return &dbgEngine{e: e}, nil
}

func (d *dbgEngine) Execute(command string) (string, int, error) {
	cs := C.CString(command)
	defer C.free(unsafe.Pointer(cs))
	hr := C.engExecute(d.e, cs)
	var n, dropped C.size_t
	p := C.engOutput(d.e, &n, &dropped)
	if p == nil {
		return "", int(dropped), fmt.Errorf("converting the output to UTF-8: out of memory")
	}
	defer C.free(unsafe.Pointer(p))
	out := C.GoStringN(p, C.int(n))
	var err error
	if hr != 0 {
		err = HRESULT(hr)
	}
	return out, int(dropped), err
}

func (d *dbgEngine) Output(text string) {
	cs := C.CString(text)
	defer C.free(unsafe.Pointer(cs))
	C.engPrint(d.e, cs)
}

func (d *dbgEngine) Interrupt()      { C.engInterrupt(d.e) }
func (d *dbgEngine) ClearInterrupt() { C.engClearInterrupt(d.e) }

func (d *dbgEngine) Close() {
	C.engClose(d.e)
	C.free(unsafe.Pointer(d.e))
	d.e = nil
}
