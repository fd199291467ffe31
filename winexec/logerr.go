package winexec

import "errors"

// quotingErrs are the errors whose text quotes a request's arguments or
// command line, which may hold secrets (a password, a token).
var quotingErrs = []error{ErrRawCommandLine, ErrBatchArg, ErrCmdArgs, ErrCmdNewline, ErrNUL}

// logErr is err as the Executor logs it: the text of an error that quotes
// the request's data is replaced by its kind, since a log is read by
// people the request was not meant for. The caller still gets err whole.
func logErr(err error) any {
	if err == nil {
		return nil
	}
	for _, q := range quotingErrs {
		if errors.Is(err, q) {
			return q.Error() + " (details withheld from the log: they quote the request)"
		}
	}
	var ce *CmdArgError
	if errors.As(err, &ce) {
		return "winexec: cmd.exe cannot pass an argument literally (details withheld from the log: they quote the request)"
	}
	return err.Error()
}
