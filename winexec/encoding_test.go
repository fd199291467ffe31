package winexec

import (
	"testing"
)

func TestDecode(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		cp   int
		want string
	}{
		{"utf8 wins over code page", []byte("héllo 中文"), 936, "héllo 中文"},
		{"gbk", []byte{0xD6, 0xD0, 0xCE, 0xC4}, 936, "中文"},
		{"big5", []byte{0xA4, 0xA4, 0xA4, 0xE5}, 950, "中文"},
		{"shift-jis", []byte{0x93, 0xfa, 0x96, 0x7b}, 932, "日本"},
		{"euc-kr", []byte{0xc7, 0xd1, 0xb1, 0xb9}, 949, "한국"},
		{"cp437 box", []byte{0xC9, 0xCD, 0xBB}, 437, "╔═╗"},
		{"cp850 e-acute", []byte{0x82}, 850, "é"},
		{"cp1252 euro", []byte{0x80}, 1252, "€"},
		{"unknown code page falls back to 1252", []byte{0xE9}, 0, "é"},
		{"65001 invalid bytes replaced", []byte{'a', 0xFF}, 65001, "a\uFFFD"},
		{"empty", nil, 936, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Decode(tt.in, tt.cp); got != tt.want {
				t.Errorf("Decode(% x, %d) = %q, want %q", tt.in, tt.cp, got, tt.want)
			}
		})
	}
}

func TestCodePageEncodingKnown(t *testing.T) {
	for _, cp := range []int{936, 950, 932, 949, 437, 850, 1252, 65001, 54936, 866, 1251} {
		if CodePageEncoding(cp) == nil {
			t.Errorf("code page %d unknown", cp)
		}
	}
	if CodePageEncoding(12345) != nil {
		t.Error("code page 12345 should be unknown")
	}
}
