package winexec

import (
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	"golang.org/x/text/encoding/unicode"
)

// CodePageEncoding returns the decoder for a Windows code page number, or
// nil when the package does not know it. 65001 (UTF-8) maps to a UTF-8
// decoder that replaces invalid bytes.
func CodePageEncoding(cp int) encoding.Encoding {
	switch cp {
	case 65001:
		return unicode.UTF8
	case 1200:
		return unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM)
	case 936:
		return simplifiedchinese.GBK
	case 54936:
		return simplifiedchinese.GB18030
	case 950:
		return traditionalchinese.Big5
	case 932:
		return japanese.ShiftJIS
	case 949:
		return korean.EUCKR
	case 437:
		return charmap.CodePage437
	case 850:
		return charmap.CodePage850
	case 852:
		return charmap.CodePage852
	case 855:
		return charmap.CodePage855
	case 858:
		return charmap.CodePage858
	case 860:
		return charmap.CodePage860
	case 862:
		return charmap.CodePage862
	case 863:
		return charmap.CodePage863
	case 865:
		return charmap.CodePage865
	case 866:
		return charmap.CodePage866
	case 874:
		return charmap.Windows874
	case 1250:
		return charmap.Windows1250
	case 1251:
		return charmap.Windows1251
	case 1252:
		return charmap.Windows1252
	case 1253:
		return charmap.Windows1253
	case 1254:
		return charmap.Windows1254
	case 1255:
		return charmap.Windows1255
	case 1256:
		return charmap.Windows1256
	case 1257:
		return charmap.Windows1257
	case 1258:
		return charmap.Windows1258
	case 20866:
		return charmap.KOI8R
	case 28591:
		return charmap.ISO8859_1
	}
	return nil
}

// Decode turns program output into text. Valid UTF-8 is returned as is
// (many modern tools write UTF-8 whatever the console says); anything else
// is decoded with the code page, and with Windows-1252 when the code page is
// unknown or 0, so that no byte is silently lost.
func Decode(b []byte, codePage int) string {
	if isUTF8(b) {
		return string(b)
	}
	enc := CodePageEncoding(codePage)
	if enc == nil || codePage == 65001 {
		if codePage == 65001 {
			return string(toValidUTF8(b))
		}
		enc = charmap.Windows1252
	}
	s, err := enc.NewDecoder().Bytes(b)
	if err != nil {
		return string(toValidUTF8(b))
	}
	return string(s)
}

func isUTF8(b []byte) bool { return utf8.Valid(b) }

func toValidUTF8(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		out = utf8.AppendRune(out, r)
		b = b[n:]
	}
	return out
}

// trimCutUTF8 joins head and tail without the partial UTF-8 sequences that
// truncation may have cut at the end of head and the start of tail.
func trimCutUTF8(head, tail []byte) []byte {
	// At most 3 continuation bytes can start the tail.
	for i := 0; i < 3 && len(tail) > 0 && tail[0]&0xC0 == 0x80; i++ {
		tail = tail[1:]
	}
	// Drop an incomplete sequence at the end of head.
	for i := 1; i <= 3 && i <= len(head); i++ {
		c := head[len(head)-i]
		if c&0xC0 == 0x80 {
			continue
		}
		if c >= 0xC0 && !utf8.FullRune(head[len(head)-i:]) {
			head = head[:len(head)-i]
		}
		break
	}
	b := make([]byte, 0, len(head)+len(tail))
	return append(append(b, head...), tail...)
}
