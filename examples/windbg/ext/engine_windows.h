// The C side of the extension: the dbgeng calls the Go code makes, and
// the output-callbacks object that captures a command's output.
#ifndef WINDBG_EXT_ENGINE_H
#define WINDBG_EXT_ENGINE_H

#include <windows.h>
#include <dbgeng.h>

typedef struct capture capture;

// engine holds the objects the worker thread creates: a client from
// DebugCreate for output to the debugger window, and a client made for
// capturing, whose output callbacks collect what Execute prints.
typedef struct engine {
	IDebugClient *client;
	IDebugControl *control;
	IDebugClient *capClient;
	IDebugControl *capControl;
	capture *cb;
} engine;

HRESULT engOpen(engine *e, size_t maxOutput);
HRESULT engExecute(engine *e, const char *command);
char *engOutput(engine *e, size_t *len, size_t *dropped);
void engPrint(engine *e, const char *text);
void engInterrupt(engine *e);
void engClearInterrupt(engine *e);
void engClose(engine *e);

// extPrint prints text through the client the debugger passed to an
// extension command, on the debugger's thread.
HRESULT extPrint(IDebugClient *client, const char *text);

// pinModule keeps this DLL loaded for the life of the process.
BOOL pinModule(void);

#endif
