package engine

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/humchess/humchess/uci"
)

// Session drives a uci.Server over an in-memory pipe, as a GUI would: it
// writes command lines and reads reply lines with the time each arrived.
// Send, Expect and Close are for one goroutine at a time; Write is the
// server's.
type Session struct {
	in    *io.PipeWriter
	lines chan timedLine
	done  chan error
	mu    sync.Mutex
	buf   []byte // a partial line written by the server
}

type timedLine struct {
	text string
	at   time.Time
}

// StartSession starts a uci.Server for e named name (its id name); log
// receives the server's error details (nil = none).
func StartSession(e uci.Engine, name string, log io.Writer) *Session {
	pr, pw := io.Pipe()
	s := &Session{in: pw, lines: make(chan timedLine, 4096), done: make(chan error, 1)}
	srv := uci.NewServer(e, s)
	srv.Name = name
	srv.Log = log
	go func() {
		err := srv.Run(pr)
		pr.Close()
		s.done <- err
	}()
	return s
}

// Write implements io.Writer for the server's replies, one line per
// channel message. It never blocks while the reader keeps up.
func (s *Session) Write(p []byte) (int, error) {
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf = append(s.buf, p...)
	for {
		i := bytes.IndexByte(s.buf, '\n')
		if i < 0 {
			break
		}
		select {
		case s.lines <- timedLine{string(s.buf[:i]), now}:
		default:
			return 0, errors.New("engine session: reply buffer full")
		}
		s.buf = s.buf[i+1:]
	}
	return len(p), nil
}

// Send writes one command line.
func (s *Session) Send(line string) error {
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		return fmt.Errorf("send %q: %w", line, err)
	}
	return nil
}

// Expect reads reply lines until one starting with prefix and returns
// the lines before it and that line, and when it arrived. An "info string
// error" line is an error.
func (s *Session) Expect(prefix string, timeout time.Duration) ([]string, time.Time, error) {
	var got []string
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		select {
		case l := <-s.lines:
			if strings.HasPrefix(l.text, "info string error") {
				return got, l.at, fmt.Errorf("engine: %s", strings.TrimPrefix(l.text, "info string error: "))
			}
			got = append(got, l.text)
			if strings.HasPrefix(l.text, prefix) {
				return got, l.at, nil
			}
		case err := <-s.done:
			s.done <- err
			return got, time.Time{}, fmt.Errorf("engine stopped before %q (%v)", prefix, err)
		case <-t.C:
			return got, time.Time{}, fmt.Errorf("no %q within %v", prefix, timeout)
		}
	}
}

// Close sends quit and waits for the server to end.
func (s *Session) Close() {
	_ = s.Send("quit") // fails only when the server has already stopped
	s.in.Close()
	<-s.done
}
