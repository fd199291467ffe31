#include <initguid.h>
#include <stdlib.h>
#include <string.h>
#include "engine_windows.h"

// capture is an IDebugOutputCallbacks that appends the text it receives
// to a buffer of at most max bytes and counts the rest. It is used on the
// worker thread only (the engine calls it on the thread of Execute).
struct capture {
	IDebugOutputCallbacks iface;
	LONG ref;
	char *buf;
	size_t len, max, dropped;
};

static HRESULT STDMETHODCALLTYPE capQI(IDebugOutputCallbacks *This, REFIID iid, PVOID *out) {
	if (IsEqualIID(iid, &IID_IUnknown) || IsEqualIID(iid, &IID_IDebugOutputCallbacks)) {
		*out = This;
		This->lpVtbl->AddRef(This);
		return S_OK;
	}
	*out = NULL;
	return E_NOINTERFACE;
}

static ULONG STDMETHODCALLTYPE capAddRef(IDebugOutputCallbacks *This) {
	return InterlockedIncrement(&((capture *)This)->ref);
}

static ULONG STDMETHODCALLTYPE capRelease(IDebugOutputCallbacks *This) {
	capture *c = (capture *)This;
	LONG n = InterlockedDecrement(&c->ref);
	if (n == 0) {
		free(c->buf);
		free(c);
	}
	return n;
}

static HRESULT STDMETHODCALLTYPE capOutput(IDebugOutputCallbacks *This, ULONG mask, PCSTR text) {
	capture *c = (capture *)This;
	(void)mask;
	if (text == NULL || c->buf == NULL) {
		return S_OK;
	}
	size_t n = strlen(text);
	size_t room = c->max - c->len;
	size_t k = n < room ? n : room;
	memcpy(c->buf + c->len, text, k);
	c->len += k;
	c->dropped += n - k;
	return S_OK;
}

static IDebugOutputCallbacksVtbl capVtbl = {capQI, capAddRef, capRelease, capOutput};

HRESULT engOpen(engine *e, size_t maxOutput) {
	HRESULT hr;
	memset(e, 0, sizeof *e);
	if ((hr = DebugCreate(&IID_IDebugClient, (void **)&e->client)) != S_OK) goto fail;
	if ((hr = e->client->lpVtbl->QueryInterface(e->client, &IID_IDebugControl, (void **)&e->control)) != S_OK) goto fail;
	if ((hr = e->client->lpVtbl->CreateClient(e->client, &e->capClient)) != S_OK) goto fail;
	if ((hr = e->capClient->lpVtbl->QueryInterface(e->capClient, &IID_IDebugControl, (void **)&e->capControl)) != S_OK) goto fail;
	e->cb = calloc(1, sizeof *e->cb);
	if (e->cb == NULL) {
		hr = E_OUTOFMEMORY;
		goto fail;
	}
	e->cb->iface.lpVtbl = &capVtbl;
	e->cb->ref = 1;
	e->cb->max = maxOutput;
	e->cb->buf = malloc(maxOutput + 1);
	if (e->cb->buf == NULL) {
		hr = E_OUTOFMEMORY;
		goto fail;
	}
	if ((hr = e->capClient->lpVtbl->SetOutputCallbacks(e->capClient, &e->cb->iface)) != S_OK) goto fail;
	return S_OK;
fail:
	engClose(e);
	return hr == S_OK ? E_FAIL : hr;
}

HRESULT engExecute(engine *e, const char *command) {
	e->cb->len = 0;
	e->cb->dropped = 0;
	// DEBUG_OUTCTL_THIS_CLIENT: the output goes to the capturing client's
	// callbacks only, not to the debugger window. NO_REPEAT: an empty
	// command must not repeat the last one.
	HRESULT hr = e->capControl->lpVtbl->Execute(e->capControl, DEBUG_OUTCTL_THIS_CLIENT, command,
		DEBUG_EXECUTE_NOT_LOGGED | DEBUG_EXECUTE_NO_REPEAT);
	e->capClient->lpVtbl->FlushCallbacks(e->capClient);
	return hr;
}

// engOutput returns the captured output converted from the ANSI code page
// the engine writes in (IDebugOutputCallbacks is the narrow interface) to
// UTF-8, in a buffer the caller frees; NULL when it cannot allocate.
char *engOutput(engine *e, size_t *len, size_t *dropped) {
	capture *c = e->cb;
	*dropped = c->dropped;
	*len = 0;
	if (c->len == 0) return calloc(1, 1);
	int wn = MultiByteToWideChar(CP_ACP, 0, c->buf, (int)c->len, NULL, 0);
	WCHAR *w = malloc((size_t)wn * sizeof(WCHAR));
	if (w == NULL) return NULL;
	MultiByteToWideChar(CP_ACP, 0, c->buf, (int)c->len, w, wn);
	int un = WideCharToMultiByte(CP_UTF8, 0, w, wn, NULL, 0, NULL, NULL);
	char *u = malloc((size_t)un + 1);
	if (u != NULL) {
		WideCharToMultiByte(CP_UTF8, 0, w, wn, u, un, NULL, NULL);
		*len = (size_t)un;
	}
	free(w);
	return u;
}

void engPrint(engine *e, const char *text) {
	e->control->lpVtbl->ControlledOutput(e->control, DEBUG_OUTCTL_ALL_OTHER_CLIENTS, DEBUG_OUTPUT_NORMAL, "%s", text);
}

void engInterrupt(engine *e) {
	e->capControl->lpVtbl->SetInterrupt(e->capControl, DEBUG_INTERRUPT_ACTIVE);
}

void engClearInterrupt(engine *e) {
	e->capControl->lpVtbl->GetInterrupt(e->capControl);
}

void engClose(engine *e) {
	if (e->capClient != NULL) {
		e->capClient->lpVtbl->SetOutputCallbacks(e->capClient, NULL);
	}
	if (e->capControl != NULL) e->capControl->lpVtbl->Release(e->capControl);
	if (e->capClient != NULL) e->capClient->lpVtbl->Release(e->capClient);
	if (e->control != NULL) e->control->lpVtbl->Release(e->control);
	if (e->client != NULL) e->client->lpVtbl->Release(e->client);
	if (e->cb != NULL) e->cb->iface.lpVtbl->Release(&e->cb->iface);
	memset(e, 0, sizeof *e);
}

HRESULT extPrint(IDebugClient *client, const char *text) {
	IDebugControl *control = NULL;
	HRESULT hr = client->lpVtbl->QueryInterface(client, &IID_IDebugControl, (void **)&control);
	if (hr != S_OK) return hr;
	hr = control->lpVtbl->Output(control, DEBUG_OUTPUT_NORMAL, "%s", text);
	control->lpVtbl->Release(control);
	return hr;
}

BOOL pinModule(void) {
	HMODULE h;
	return GetModuleHandleExW(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_PIN,
		(LPCWSTR)(void *)pinModule, &h);
}
