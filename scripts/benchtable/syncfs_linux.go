package main

import (
	"os"

	"golang.org/x/sys/unix"
)

func syncfs(f *os.File) { unix.Syncfs(int(f.Fd())) }
