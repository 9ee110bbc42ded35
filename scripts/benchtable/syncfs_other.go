//go:build !linux

package main

import "os"

func syncfs(f *os.File) { f.Sync() }
