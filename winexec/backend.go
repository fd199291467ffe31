package winexec

import (
	"context"
	"time"
)

// A Backend runs one request to completion. Implementations are safe for
// concurrent use. Run returns a non-nil Result whenever the program started,
// even with a non-nil error (a cancelled context, a PowerShell host that
// died); a timeout is not an error but Result.TimedOut.
//
// Exit-code width and tree kill differ by backend:
//
//	Local       native width (8 bits on Unix, 32 on Windows); kills the
//	            process group (Unix) or Job Object (Windows)
//	Direct      8 bits through WSL interop; kills the Linux process group,
//	            which WSL turns into terminating only the direct Windows child
//	PowerShell  32 bits; taskkill /T /F from the Windows side
//	PSHost      as PowerShell
type Backend interface {
	Run(ctx context.Context, req *Request) (*Result, error)
}

// Backend names accepted by Config.Backend and WINBRIDGE_BACKEND.
const (
	BackendAuto       = "auto"
	BackendPowerShell = "powershell"
	BackendPSHost     = "pshost"
	BackendDirect     = "direct"
	BackendLocal      = "local"
)

// defaultWaitDelay bounds how long a run waits for its output pipes after
// the program exited: a daemon it left behind (hdc.exe starts its server
// that way) may hold them open forever.
const defaultWaitDelay = 2 * time.Second

// timeoutContext derives the context that bounds one run.
func timeoutContext(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d > 0 {
		return context.WithTimeout(ctx, d)
	}
	return context.WithCancel(ctx)
}
