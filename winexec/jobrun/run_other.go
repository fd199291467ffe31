//go:build !windows

package main

import "errors"

func run(string) (uint32, error) { return 0, errors.New("jobrun runs on Windows only") }
