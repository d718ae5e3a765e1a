//go:build !linux

package main

import (
	"errors"
	"time"
)

var errNoProc = errors.New("server CPU and memory are read from /proc, which only Linux has")

func processCPU(int) (time.Duration, error) { return 0, errNoProc }

func processRSS(int) (int64, error) { return 0, errNoProc }

func watchPeakRSS(int) func() int64 { return func() int64 { return 0 } }
