// A fake debugger host for the extension's tests: it does what WinDbg's
// .load, !mcp and .unload do, driven by lines on stdin, and prints what
// the engine prints (the fake dbgeng.dll writes the window to stdout).
//
//   load PATH      LoadLibrary, look up the exports, DebugExtensionInitialize
//   mcp ARGS       call the extension's mcp export with this thread's client
//   unload         DebugExtensionUninitialize, DebugExtensionCanUnload, FreeLibrary
//   canunload      DebugExtensionCanUnload now, and what the .unload hook saw
//   wrongthread    use this thread's client from another thread (must fail)
//   stats          the fake engine's counters
//   exit
//
// Each command ends with a line "done CMD ...".
#include <initguid.h>
#include <windows.h>
#include <dbgeng.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef LONG(WINAPI *counter)(void);
// mingw's dbgeng.h lacks this one.
typedef HRESULT(CALLBACK *PDEBUG_EXTENSION_CANUNLOAD)(void);

static IDebugClient *client;
static IDebugControl *control;
static HMODULE ext;
static PDEBUG_EXTENSION_INITIALIZE init;
static PDEBUG_EXTENSION_UNINITIALIZE uninit;
static PDEBUG_EXTENSION_CANUNLOAD canUnload;
static PDEBUG_EXTENSION_CALL mcp;

// say prints a line through this thread's client, as WinDbg's own output
// does, so that it cannot interleave with the extension's output.
static void say(const char *format, ...) {
	char buf[8192];
	va_list ap;
	va_start(ap, format);
	vsnprintf(buf, sizeof buf, format, ap);
	va_end(ap);
	control->lpVtbl->Output(control, DEBUG_OUTPUT_NORMAL, "%s", buf);
}

// hookUnload is .unload run as a command inside the engine: the
// extension is uninitialized on the thread executing that command.
static volatile LONG hookCalls;
static volatile HRESULT hookCanUnload = -1;

static void WINAPI hookUnload(void) {
	if (uninit) uninit();
	if (canUnload) hookCanUnload = canUnload();
	InterlockedIncrement(&hookCalls);
}

static DWORD WINAPI otherThread(LPVOID arg) {
	(void)arg;
	return (DWORD)control->lpVtbl->Output(control, DEBUG_OUTPUT_NORMAL, "from the wrong thread\n");
}

static LONG count(const char *name) {
	counter f = (counter)(void *)GetProcAddress(GetModuleHandleA("dbgeng.dll"), name);
	return f ? f() : -1;
}

static void load(const char *path) {
	ext = LoadLibraryA(path);
	if (ext == NULL) {
		say("load: LoadLibrary failed, error %lu\n", GetLastError());
		return;
	}
	init = (PDEBUG_EXTENSION_INITIALIZE)(void *)GetProcAddress(ext, "DebugExtensionInitialize");
	uninit = (PDEBUG_EXTENSION_UNINITIALIZE)(void *)GetProcAddress(ext, "DebugExtensionUninitialize");
	canUnload = (PDEBUG_EXTENSION_CANUNLOAD)(void *)GetProcAddress(ext, "DebugExtensionCanUnload");
	mcp = (PDEBUG_EXTENSION_CALL)(void *)GetProcAddress(ext, "mcp");
	if (!init || !uninit || !canUnload || !mcp) {
		say("load: missing export\n");
		return;
	}
	ULONG version = 0, flags = 0;
	HRESULT hr = init(&version, &flags);
	say("load: module=%p hr=0x%08lx version=0x%08lx\n", (void *)ext, (unsigned long)hr, version);
}

int main(void) {
	setvbuf(stdout, NULL, _IONBF, 0);
	HRESULT hr = DebugCreate(&IID_IDebugClient, (void **)&client);
	if (hr != S_OK || client->lpVtbl->QueryInterface(client, &IID_IDebugControl, (void **)&control) != S_OK) {
		fprintf(stderr, "host: DebugCreate failed 0x%08lx\n", (unsigned long)hr);
		return 1;
	}
	typedef void(WINAPI * setHook)(void(WINAPI *)(void));
	setHook set = (setHook)(void *)GetProcAddress(GetModuleHandleA("dbgeng.dll"), "FakeDbgSetUnloadHook");
	if (set) set(hookUnload);
	char line[4096];
	while (fgets(line, sizeof line, stdin)) {
		line[strcspn(line, "\r\n")] = 0;
		if (strncmp(line, "load ", 5) == 0) {
			load(line + 5);
		} else if (strcmp(line, "mcp") == 0 || strncmp(line, "mcp ", 4) == 0) {
			hr = mcp ? mcp(client, line[3] ? line + 4 : "") : E_FAIL;
			say("mcp: hr=0x%08lx\n", (unsigned long)hr);
		} else if (strcmp(line, "unload") == 0) {
			uninit();
			hr = canUnload();
			say("unload: canunload=0x%08lx freed=%d\n", (unsigned long)hr, FreeLibrary(ext));
			init = NULL;
			uninit = NULL;
			canUnload = NULL;
			mcp = NULL;
		} else if (strcmp(line, "wrongthread") == 0) {
			HANDLE t = CreateThread(NULL, 0, otherThread, NULL, 0, NULL);
			DWORD rc = 0;
			WaitForSingleObject(t, INFINITE);
			GetExitCodeThread(t, &rc);
			CloseHandle(t);
			say("wrongthread: hr=0x%08lx\n", (unsigned long)rc);
		} else if (strcmp(line, "canunload") == 0) {
			say("canunload: hr=0x%08lx hook=%ld hookhr=0x%08lx\n", canUnload ? (unsigned long)canUnload() : 0xffffffffUL, hookCalls, (unsigned long)hookCanUnload);
		} else if (strcmp(line, "stats") == 0) {
			say("stats: violations=%ld live=%ld unimplemented=%ld\n", count("FakeDbgViolations"), count("FakeDbgLive"), count("FakeDbgUnimplemented"));
		} else if (strcmp(line, "exit") == 0) {
			say("done exit\n");
			break;
		}
		say("done %s\n", line);
	}
	control->lpVtbl->Release(control);
	client->lpVtbl->Release(client);
	return 0;
}
