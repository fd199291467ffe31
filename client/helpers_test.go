package client_test

import "runtime"

func runtimeGosched() { runtime.Gosched() }
