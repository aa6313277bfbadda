package main

import (
	"context"
	"errors"
	"os"
	"os/signal"
	"syscall"
)

// Ctrl-C (SIGINT) and SIGTERM stop a run or a sweep cleanly instead of
// killing it: the run stops at the end of its chunk of simulated time and
// removes the files it was writing, a sweep starts no new point and its
// running points stop the same way (they get the signal from the
// terminal, or from the sweep), and dcsim exits 128 + the signal's number
// (130, 143) with one line saying what was kept: for a sweep, how to
// resume. Other commands (validate, report) are not written to be
// stopped and die by the signal; the parent reports that as
// "interrupted" with the same status (childStatus).

// signalCause is a run's context's cause when a signal stopped it.
type signalCause struct{ sig os.Signal }

func (c signalCause) Error() string { return "interrupted by " + c.sig.String() }

// interruptedError is a command's message for a run or sweep a signal
// stopped; run exits 128 + the signal's number for it.
type interruptedError struct {
	msg   string
	cause signalCause
}

func (e *interruptedError) Error() string { return e.msg }
func (e *interruptedError) Unwrap() error { return e.cause }

// interruptedBy is the message msg if a signal caused err, else
// otherwise.
func interruptedBy(err error, msg string, otherwise error) error {
	var c signalCause
	if errors.As(err, &c) {
		return &interruptedError{msg: msg, cause: c}
	}
	return otherwise
}

// interruptStatus is the exit status for err: 128 + the signal's number
// when a signal stopped the command, else 0.
func interruptStatus(err error) int {
	var c signalCause
	if !errors.As(err, &c) {
		return 0
	}
	if s, ok := c.sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 130
}

// withInterrupt is parent that SIGINT and SIGTERM end, with the signal as
// its cause (signalCause); stop releases the signals to their default.
func withInterrupt(parent context.Context) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(parent)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sigs:
			cancel(signalCause{s})
		case <-done:
		}
	}()
	return ctx, func() {
		signal.Stop(sigs)
		close(done)
		cancel(nil)
	}
}

// signalOf is the signal that ended ctx, to pass on to a child; SIGTERM
// if something else did.
func signalOf(ctx context.Context) os.Signal {
	var c signalCause
	if errors.As(context.Cause(ctx), &c) {
		return c.sig
	}
	return syscall.SIGTERM
}
