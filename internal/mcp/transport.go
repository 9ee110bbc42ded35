package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxMessage is the largest message the server reads, in bytes (the SDK's
// own frame limit): a longer line is answered with an error and skipped.
const MaxMessage = sdk.DefaultMaxLineLength

// lineTransport is the stdio framing of MCP (one JSON-RPC message a line)
// as a server that outlives its client's mistakes must read it. The SDK's
// own IOTransport ends the session at the first line it cannot decode or
// that is too long, and once its input ends it drops the answers of the
// requests still running: a client that sends one bad line, or writes a
// request and closes the pipe, loses every answer. Here a bad line is
// answered with the JSON-RPC error the specification gives it (-32700 not
// JSON, -32600 not a request, too large or a batch) and reading goes on;
// the end of the input is reported only once every request read has been
// answered.
type lineTransport struct {
	in  io.Reader
	out io.Writer
	max int
}

func (t *lineTransport) Connect(context.Context) (sdk.Connection, error) {
	c := &lineConn{
		out:      t.out,
		max:      t.max,
		lines:    make(chan frame),
		closed:   make(chan struct{}),
		open:     map[jsonrpc.ID]struct{}{},
		answered: make(chan struct{}, 1),
	}
	// Reading is a goroutine of its own so that Close unblocks a Read
	// waiting on a client that says nothing (the SDK's Connection
	// contract); a read of stdin itself cannot be interrupted.
	go c.readLines(t.in)
	return c, nil
}

// frame is one line of input, or the error that ended it.
type frame struct {
	line    []byte
	tooLong bool
	err     error
}

type lineConn struct {
	out io.Writer
	max int

	lines     chan frame
	closed    chan struct{}
	closeOnce sync.Once

	writeMu sync.Mutex

	mu sync.Mutex
	// open are the calls read and not answered yet; answered is signalled
	// each time one is.
	open     map[jsonrpc.ID]struct{}
	answered chan struct{}
}

func (c *lineConn) readLines(in io.Reader) {
	r := bufio.NewReaderSize(in, 64<<10)
	send := func(f frame) bool {
		select {
		case c.lines <- f:
			return true
		case <-c.closed:
			return false
		}
	}
	for {
		line, tooLong, err := readLine(r, c.max)
		if (len(line) > 0 || tooLong) && !send(frame{line: line, tooLong: tooLong}) {
			return
		}
		if err != nil {
			send(frame{err: err})
			return
		}
	}
}

// readLine reads up to the next newline, keeping at most max bytes of it:
// a longer line is read to its end and dropped (tooLong), so the next one
// is read whole.
func readLine(r *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max+2 { // the limit and "\r\n"
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) > max {
			tooLong, line = true, nil
		}
		return line, tooLong, err
	}
}

// Read returns the next message; a line that is not one is answered here
// and skipped.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		var f frame
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case f = <-c.lines:
		}
		if f.err != nil {
			return nil, c.drain(ctx, f.err)
		}
		if f.tooLong {
			c.reject(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, fmt.Sprintf("message larger than %d bytes: skipped", c.max))
			continue
		}
		msg, id, code, why := decode(f.line)
		if msg == nil {
			if code != 0 {
				c.reject(id, code, why)
			}
			continue
		}
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			c.mu.Lock()
			c.open[req.ID] = struct{}{}
			c.mu.Unlock()
		}
		return msg, nil
	}
}

// drain waits until every call read has been answered, then returns the
// error that ended the input: the SDK stops writing once Read fails.
func (c *lineConn) drain(ctx context.Context, end error) error {
	for {
		c.mu.Lock()
		n := len(c.open)
		c.mu.Unlock()
		if n == 0 {
			return end
		}
		select {
		case <-c.answered:
		case <-ctx.Done():
			return end
		case <-c.closed:
			return end
		}
	}
}

// decode reads one line as a JSON-RPC message. A line that is not one
// has no message and the error code to answer it with (0: a blank line,
// nothing to answer), with its id when it has a usable one.
func decode(line []byte) (msg jsonrpc.Message, id jsonrpc.ID, code int64, why string) {
	// A byte order mark (a client on Windows) is not JSON but says nothing
	// wrong about the message.
	line = bytes.TrimSpace(bytes.TrimPrefix(line, []byte("\xef\xbb\xbf")))
	if len(line) == 0 {
		return nil, id, 0, ""
	}
	var probe json.RawMessage
	if err := json.Unmarshal(line, &probe); err != nil {
		return nil, id, jsonrpc.CodeParseError, "parse error: " + err.Error()
	}
	switch line[0] {
	case '{':
	case '[':
		return nil, id, jsonrpc.CodeInvalidRequest, "invalid request: batches are not supported, send one message a line"
	default:
		return nil, id, jsonrpc.CodeInvalidRequest, "invalid request: a JSON-RPC message is a JSON object"
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		var withID struct {
			ID any `json:"id"`
		}
		if json.Unmarshal(line, &withID) == nil {
			id, _ = jsonrpc.MakeID(withID.ID)
		}
		return nil, id, jsonrpc.CodeInvalidRequest, "invalid request: " + err.Error()
	}
	return msg, id, 0, ""
}

// reject answers a line that was not a message.
func (c *lineConn) reject(id jsonrpc.ID, code int64, why string) {
	type wireError struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}
	data, err := json.Marshal(struct {
		JSONRPC string    `json:"jsonrpc"`
		ID      any       `json:"id"`
		Error   wireError `json:"error"`
	}{"2.0", id.Raw(), wireError{code, why}})
	if err != nil {
		return
	}
	// A client gone is found by the next write of the SDK's own.
	c.writeLine(data)
}

func (c *lineConn) Write(_ context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err == nil {
		err = c.writeLine(data)
	}
	// Answered, or never to be: either way the input's end waits no
	// longer for it.
	if resp, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		delete(c.open, resp.ID)
		c.mu.Unlock()
		select {
		case c.answered <- struct{}{}:
		default:
		}
	}
	return err
}

func (c *lineConn) writeLine(data []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if _, err := c.out.Write(append(data, '\n')); err != nil {
		return err
	}
	if f, ok := c.out.(interface{ Flush() error }); ok {
		return f.Flush()
	}
	return nil
}

func (c *lineConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return nil
}

func (c *lineConn) SessionID() string { return "" }
