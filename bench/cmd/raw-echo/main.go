// Command raw-echo is the raw pipe baseline: it copies each line of stdin
// to stdout, unparsed.
package main

import (
	"bufio"
	"os"
)

func main() {
	r := bufio.NewReaderSize(os.Stdin, 64<<10)
	w := bufio.NewWriterSize(os.Stdout, 64<<10)
	for {
		line, err := r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A long line: copy it through in pieces.
			w.Write(line)
			continue
		}
		if err != nil {
			return
		}
		w.Write(line)
		if r.Buffered() == 0 {
			if w.Flush() != nil {
				return
			}
		}
	}
}
