// A fake dbgeng.dll for the extension's tests under wine, whose own
// dbgeng.dll is a stub. It implements DebugCreate and the COM methods the
// extension calls, and enforces dbgeng's thread affinity: an object may be
// used only on the thread that created it (SetInterrupt aside, which
// dbgeng allows from any thread); any other call is counted as a
// violation and fails with RPC_E_WRONG_THREAD. Every other method is a
// stub that counts its calls.
//
// Output to the debugger's window (all clients) goes to stdout, which is
// the host's window. Execute knows a few commands:
//   k, r        canned output
//   ansi        prints Windows-1252 text (café €)
//   hang        waits until interrupted, then says so
//   big N       prints N bytes of 'x'
//   .unload     calls the host's unload hook (FakeDbgSetUnloadHook)
//   anything    an error message and E_FAIL
// Each executed command is appended to the file named by FAKEDBG_LOG.
#include <initguid.h>
#include <windows.h>
#include <dbgeng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static LONG violations, live, unimplemented, interruptFlag;
// unloadHook is what .unload does: the host sets it, as WinDbg's .unload
// calls into the extension, on the thread running the command.
static void(WINAPI *unloadHook)(void);
static HANDLE interruptEvent;
static CRITICAL_SECTION outLock;

typedef struct fclient {
	IDebugClient iface;
	LONG ref;
	DWORD owner;
	IDebugOutputCallbacks *cb;
} fclient;

typedef struct fcontrol {
	IDebugControl iface;
	LONG ref;
	DWORD owner;
	fclient *client;
} fcontrol;

static IDebugClientVtbl clientVtbl;
static IDebugControlVtbl controlVtbl;

#define AFFINE(obj, fail) \
	do { \
		if (GetCurrentThreadId() != (obj)->owner) { \
			InterlockedIncrement(&violations); \
			return fail; \
		} \
	} while (0)

static HRESULT STDMETHODCALLTYPE notimpl(void *This) {
	(void)This;
	InterlockedIncrement(&unimplemented);
	return E_NOTIMPL;
}

static void window(const char *text) {
	EnterCriticalSection(&outLock);
	fputs(text, stdout);
	fflush(stdout);
	LeaveCriticalSection(&outLock);
}

static fcontrol *newControl(fclient *c);

static fclient *newClient(void) {
	fclient *c = calloc(1, sizeof *c);
	c->iface.lpVtbl = &clientVtbl;
	c->ref = 1;
	c->owner = GetCurrentThreadId();
	InterlockedIncrement(&live);
	return c;
}

static HRESULT STDMETHODCALLTYPE clientQI(IDebugClient *This, REFIID iid, PVOID *out) {
	fclient *c = (fclient *)This;
	AFFINE(c, RPC_E_WRONG_THREAD);
	if (IsEqualIID(iid, &IID_IUnknown) || IsEqualIID(iid, &IID_IDebugClient)) {
		InterlockedIncrement(&c->ref);
		*out = This;
		return S_OK;
	}
	if (IsEqualIID(iid, &IID_IDebugControl)) {
		*out = newControl(c);
		return S_OK;
	}
	*out = NULL;
	return E_NOINTERFACE;
}

static ULONG STDMETHODCALLTYPE clientAddRef(IDebugClient *This) {
	fclient *c = (fclient *)This;
	AFFINE(c, 0);
	return InterlockedIncrement(&c->ref);
}

static ULONG STDMETHODCALLTYPE clientRelease(IDebugClient *This) {
	fclient *c = (fclient *)This;
	AFFINE(c, 0);
	LONG n = InterlockedDecrement(&c->ref);
	if (n == 0) {
		if (c->cb) c->cb->lpVtbl->Release(c->cb);
		free(c);
		InterlockedDecrement(&live);
	}
	return n;
}

static HRESULT STDMETHODCALLTYPE clientCreateClient(IDebugClient *This, PDEBUG_CLIENT *out) {
	AFFINE((fclient *)This, RPC_E_WRONG_THREAD);
	*out = &newClient()->iface;
	return S_OK;
}

static HRESULT STDMETHODCALLTYPE clientSetOutputCallbacks(IDebugClient *This, PDEBUG_OUTPUT_CALLBACKS cb) {
	fclient *c = (fclient *)This;
	AFFINE(c, RPC_E_WRONG_THREAD);
	if (cb) cb->lpVtbl->AddRef(cb);
	if (c->cb) c->cb->lpVtbl->Release(c->cb);
	c->cb = cb;
	return S_OK;
}

static HRESULT STDMETHODCALLTYPE clientFlushCallbacks(IDebugClient *This) {
	AFFINE((fclient *)This, RPC_E_WRONG_THREAD);
	return S_OK;
}

static fcontrol *newControl(fclient *c) {
	fcontrol *k = calloc(1, sizeof *k);
	k->iface.lpVtbl = &controlVtbl;
	k->ref = 1;
	k->owner = c->owner;
	k->client = c;
	InterlockedIncrement(&c->ref);
	InterlockedIncrement(&live);
	return k;
}

static HRESULT STDMETHODCALLTYPE controlQI(IDebugControl *This, REFIID iid, PVOID *out) {
	fcontrol *k = (fcontrol *)This;
	AFFINE(k, RPC_E_WRONG_THREAD);
	if (IsEqualIID(iid, &IID_IUnknown) || IsEqualIID(iid, &IID_IDebugControl)) {
		InterlockedIncrement(&k->ref);
		*out = This;
		return S_OK;
	}
	*out = NULL;
	return E_NOINTERFACE;
}

static ULONG STDMETHODCALLTYPE controlAddRef(IDebugControl *This) {
	fcontrol *k = (fcontrol *)This;
	AFFINE(k, 0);
	return InterlockedIncrement(&k->ref);
}

static ULONG STDMETHODCALLTYPE controlRelease(IDebugControl *This) {
	fcontrol *k = (fcontrol *)This;
	AFFINE(k, 0);
	LONG n = InterlockedDecrement(&k->ref);
	if (n == 0) {
		clientRelease(&k->client->iface);
		free(k);
		InterlockedDecrement(&live);
	}
	return n;
}

// emit sends text where outctl says: this client's callbacks, or the window.
static void emit(fcontrol *k, ULONG outctl, const char *text) {
	if ((outctl & 7) == DEBUG_OUTCTL_THIS_CLIENT) {
		if (k->client->cb) k->client->cb->lpVtbl->Output(k->client->cb, DEBUG_OUTPUT_NORMAL, text);
		return;
	}
	window(text);
}

static void vemit(fcontrol *k, ULONG outctl, const char *format, va_list ap) {
	char stack[1024];
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(stack, sizeof stack, format, ap);
	if (n < (int)sizeof stack) {
		emit(k, outctl, stack);
	} else {
		char *buf = malloc(n + 1);
		vsnprintf(buf, n + 1, format, ap2);
		emit(k, outctl, buf);
		free(buf);
	}
	va_end(ap2);
}

static HRESULT STDMETHODCALLTYPE controlOutput(IDebugControl *This, ULONG mask, PCSTR format, ...) {
	fcontrol *k = (fcontrol *)This;
	(void)mask;
	AFFINE(k, RPC_E_WRONG_THREAD);
	va_list ap;
	va_start(ap, format);
	vemit(k, DEBUG_OUTCTL_ALL_CLIENTS, format, ap);
	va_end(ap);
	return S_OK;
}

static HRESULT STDMETHODCALLTYPE controlControlledOutput(IDebugControl *This, ULONG outctl, ULONG mask, PCSTR format, ...) {
	fcontrol *k = (fcontrol *)This;
	(void)mask;
	AFFINE(k, RPC_E_WRONG_THREAD);
	va_list ap;
	va_start(ap, format);
	vemit(k, outctl, format, ap);
	va_end(ap);
	return S_OK;
}

// SetInterrupt is the one call dbgeng allows from any thread.
static HRESULT STDMETHODCALLTYPE controlSetInterrupt(IDebugControl *This, ULONG flags) {
	(void)This;
	(void)flags;
	InterlockedExchange(&interruptFlag, 1);
	SetEvent(interruptEvent);
	return S_OK;
}

static HRESULT STDMETHODCALLTYPE controlGetInterrupt(IDebugControl *This) {
	AFFINE((fcontrol *)This, RPC_E_WRONG_THREAD);
	ResetEvent(interruptEvent);
	return InterlockedExchange(&interruptFlag, 0) ? S_OK : S_FALSE;
}

static void logCommand(const char *command) {
	const char *path = getenv("FAKEDBG_LOG");
	if (path == NULL || *path == 0) return;
	EnterCriticalSection(&outLock);
	FILE *f = fopen(path, "ab");
	if (f) {
		fprintf(f, "%s\n", command);
		fclose(f);
	}
	LeaveCriticalSection(&outLock);
}

static HRESULT STDMETHODCALLTYPE controlExecute(IDebugControl *This, ULONG outctl, PCSTR command, ULONG flags) {
	fcontrol *k = (fcontrol *)This;
	(void)flags;
	AFFINE(k, RPC_E_WRONG_THREAD);
	logCommand(command);
	if (strcmp(command, "k") == 0) {
		emit(k, outctl, " # Child-SP          RetAddr               Call Site\n");
		emit(k, outctl, "00 000000a1`2f9ff6b8 00007ffb`4c2b1f3e     ntdll!NtWaitForSingleObject+0x14\n");
		emit(k, outctl, "01 000000a1`2f9ff6c0 00007ff6`12341042     app!main+0x42\n");
		return S_OK;
	}
	if (strcmp(command, "r") == 0) {
		emit(k, outctl, "rax=0000000000000000 rbx=0000000000000001\nrip=00007ff6`12341042\n");
		return S_OK;
	}
	if (strcmp(command, "ansi") == 0) {
		emit(k, outctl, "caf\xe9 \x80\n"); // Windows-1252: e acute, euro sign
		return S_OK;
	}
	if (strcmp(command, "hang") == 0) {
		emit(k, outctl, "hang: waiting for an interrupt\n");
		WaitForSingleObject(interruptEvent, INFINITE);
		emit(k, outctl, "hang: interrupted\n");
		return S_OK;
	}
	if (strncmp(command, "big ", 4) == 0) {
		long n = atol(command + 4);
		char chunk[4097];
		memset(chunk, 'x', 4096);
		while (n > 0) {
			long m = n < 4096 ? n : 4096;
			chunk[m] = 0;
			emit(k, outctl, chunk);
			chunk[m] = 'x';
			n -= m;
		}
		return S_OK;
	}
	if (strncmp(command, ".unload", 7) == 0 && unloadHook != NULL) {
		unloadHook();
		emit(k, outctl, "Unloading extension\n");
		return S_OK;
	}
	char msg[512];
	snprintf(msg, sizeof msg, "Couldn't resolve error at '%.400s'\n", command);
	emit(k, outctl, msg);
	return E_FAIL;
}

static void initVtables(void) {
	void **slots = (void **)&clientVtbl;
	for (size_t i = 0; i < sizeof clientVtbl / sizeof(void *); i++) slots[i] = (void *)notimpl;
	slots = (void **)&controlVtbl;
	for (size_t i = 0; i < sizeof controlVtbl / sizeof(void *); i++) slots[i] = (void *)notimpl;
	clientVtbl.QueryInterface = clientQI;
	clientVtbl.AddRef = clientAddRef;
	clientVtbl.Release = clientRelease;
	clientVtbl.CreateClient = clientCreateClient;
	clientVtbl.SetOutputCallbacks = clientSetOutputCallbacks;
	clientVtbl.FlushCallbacks = clientFlushCallbacks;
	controlVtbl.QueryInterface = controlQI;
	controlVtbl.AddRef = controlAddRef;
	controlVtbl.Release = controlRelease;
	controlVtbl.Output = controlOutput;
	controlVtbl.ControlledOutput = controlControlledOutput;
	controlVtbl.SetInterrupt = controlSetInterrupt;
	controlVtbl.GetInterrupt = controlGetInterrupt;
	controlVtbl.Execute = controlExecute;
}

BOOL WINAPI DllMain(HINSTANCE h, DWORD reason, LPVOID reserved) {
	(void)h;
	(void)reserved;
	if (reason == DLL_PROCESS_ATTACH) {
		InitializeCriticalSection(&outLock);
		interruptEvent = CreateEventW(NULL, TRUE, FALSE, NULL);
		initVtables();
	}
	return TRUE;
}

HRESULT WINAPI DebugCreate(REFIID iid, PVOID *out) {
	if (!IsEqualIID(iid, &IID_IDebugClient)) {
		*out = NULL;
		return E_NOINTERFACE;
	}
	*out = &newClient()->iface;
	return S_OK;
}

void WINAPI FakeDbgSetUnloadHook(void(WINAPI *hook)(void)) { unloadHook = hook; }
LONG WINAPI FakeDbgViolations(void) { return violations; }
LONG WINAPI FakeDbgLive(void) { return live; }
LONG WINAPI FakeDbgUnimplemented(void) { return unimplemented; }
