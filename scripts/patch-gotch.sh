#!/usr/bin/env bash
# patch-gotch.sh makes build/gotch: a copy of github.com/sugarme/gotch v0.9.1
# (written for libtorch 2.1) that builds against the libtorch at hand (Debian 12's
# libtorch-dev 1.13.1 on CPU, or any libtorch named by $LIBTORCH).
#
#   1. copy the module from the Go module cache and make it writable;
#   2. rewrite libtch/lib.go's cgo flags for this libtorch (C++11 ABI, include and
#      library paths, CUDA libraries only when a CUDA libtorch is present);
#   2c. add libtch/humchess_amp.{h,cpp,go}: a binding for libtorch's autocast
#      (bf16 mixed precision), which gotch lacks;
#   3. compile libtch/torch_api.cpp with g++ -fsyntax-only, find the generated op
#      wrappers (libtch/torch_api_generated.cpp.h) that fail, replace each body with
#      one that reports an error through gotch's usual error path, and repeat until
#      it compiles (none of the stubbed ops is used by train/torch);
#   4. build the cgo package once so the Go build cache holds it.
#
# Deterministic and idempotent: the result is keyed by a stamp file holding the
# hash of this script, the gotch version and the libtorch libraries. Usage:
#
#   scripts/patch-gotch.sh [OUT_DIR]      # OUT_DIR defaults to build/gotch
#
# Environment: LIBTORCH (a libtorch directory with include/ and lib/; default the
# system one under /usr; PyTorch's own package directory, python3 -c 'import torch,
# os; print(os.path.dirname(torch.__file__))', is one), GOTCH_CXX11_ABI (1 or 0;
# by default read from libc10.so's symbols),
# GOTCH_SKIP_BUILD=1 to stop after patching.
set -euo pipefail

GOTCH_VERSION=v0.9.1
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${1:-$ROOT/build/gotch}"

if [[ -n "${LIBTORCH:-}" ]]; then
	TORCH_INC="$LIBTORCH/include"
	TORCH_LIB="$LIBTORCH/lib"
else
	TORCH_INC=/usr/include
	TORCH_LIB="$(dirname "$(readlink -f "$(ldconfig -p | awk '/libtorch_cpu\.so /{print $NF; exit}')" 2>/dev/null || echo /usr/lib/x86_64-linux-gnu/x)")"
fi
if [[ ! -f "$TORCH_INC/torch/csrc/api/include/torch/torch.h" ]]; then
	echo "patch-gotch: no libtorch headers under $TORCH_INC (apt-get install libtorch-dev, or set LIBTORCH)" >&2
	exit 1
fi
if ! ls "$TORCH_LIB"/libtorch_cpu.so* >/dev/null 2>&1; then
	echo "patch-gotch: no libtorch_cpu.so in $TORCH_LIB (set LIBTORCH)" >&2
	exit 1
fi
# The C++ ABI libtorch was built with: libc10 exports std::__cxx11 symbols under
# the new ABI (Debian's, PyTorch's own builds since 2.7), none under the old one.
if [[ -n "${GOTCH_CXX11_ABI:-}" ]]; then
	ABI="$GOTCH_CXX11_ABI"
# (grep reads all of nm's output: with grep -q, nm can die of SIGPIPE and
# pipefail then reads the match as a failure, which picks the wrong ABI.)
elif nm -D --defined-only "$TORCH_LIB/libc10.so" 2>/dev/null | grep '__cxx11' >/dev/null; then
	ABI=1
elif [[ -e "$TORCH_LIB/libc10.so" ]] && command -v nm >/dev/null; then
	ABI=0
else
	ABI=1
fi
CUDA=0
if ls "$TORCH_LIB"/libtorch_cuda.so* >/dev/null 2>&1; then
	CUDA=1
fi

# The stamp key: this script, gotch's version, the libtorch libraries' real names and sizes.
key="$( {
	sha256sum "${BASH_SOURCE[0]}" | cut -d' ' -f1
	echo "$GOTCH_VERSION abi=$ABI cuda=$CUDA inc=$TORCH_INC lib=$TORCH_LIB"
	for f in "$TORCH_LIB"/libtorch_cpu.so "$TORCH_LIB"/libc10.so; do
		[[ -e "$f" ]] && stat -L -c '%n %s' "$(readlink -f "$f")"
	done
} | sha256sum | cut -d' ' -f1)"
if [[ -f "$OUT/.stamp" && "$(cat "$OUT/.stamp")" == "$key" ]]; then
	echo "patch-gotch: $OUT is up to date"
	exit 0
fi

SRC="$(cd "$ROOT" && go mod download -json "github.com/sugarme/gotch@$GOTCH_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
if [[ ! -d "$SRC/libtch" ]]; then
	echo "patch-gotch: go mod download gave no directory for gotch $GOTCH_VERSION" >&2
	exit 1
fi

TMP="$OUT.tmp"
rm -rf "$TMP"
mkdir -p "$(dirname "$OUT")"
cp -r "$SRC" "$TMP"
chmod -R u+w "$TMP"

# 2. cgo flags.
# The cgo preamble must be one comment block: no blank line inside it.
cuda_ldflags="//"
if [[ $CUDA == 1 ]]; then
	# --no-as-needed keeps libtorch_cuda linked although no symbol of it is used
	# directly: it registers the CUDA backend when loaded.
	cuda_ldflags="// #cgo LDFLAGS: -Wl,--no-as-needed -ltorch_cuda -lc10_cuda -Wl,--as-needed"
fi
cat >"$TMP/libtch/lib.go" <<EOF
package libtch

// Rewritten by scripts/patch-gotch.sh for the libtorch in $TORCH_LIB.

// #cgo LDFLAGS: -lstdc++ -L$TORCH_LIB -Wl,-rpath,$TORCH_LIB -ltorch -lc10 -ltorch_cpu
$cuda_ldflags
// #cgo CPPFLAGS: -I\${SRCDIR} -D_GLIBCXX_USE_CXX11_ABI=$ABI -I$TORCH_INC -I$TORCH_INC/torch/csrc/api/include
// #cgo CFLAGS: -O2 -w
// #cgo CXXFLAGS: -std=c++17 -O1 -w
import "C"
EOF
gofmt -l "$TMP/libtch/lib.go" >/dev/null

# 2b. gotch's Go wrappers get their output slots from C.malloc(0) and never free
# them, and ops with several outputs (topk, max with dim, ...) write 2 or more
# pointers there: a heap overflow under allocators whose malloc(0) has 8 bytes
# (jemalloc), and a leak per op under any. Give each slot 128 bytes (16
# outputs) and free it when the wrapper returns (the outputs are read by then).
for f in "$TMP/ts/tensor-generated.go" "$TMP/ts/patch.go"; do
	perl -i -pe 's/^(\s*)(\w+) := \(\*lib\.Ctensor\)\(unsafe\.Pointer\(C\.malloc\(0\)\)\)\s*$/$1$2 := (*lib.Ctensor)(unsafe.Pointer(C.malloc(128)))\n$1defer C.free(unsafe.Pointer($2))\n/' "$f"
done
if grep -qE '^\s*\w+ := \(\*lib\.Ctensor\)\(unsafe\.Pointer\(C\.malloc\(0\)\)\)' "$TMP/ts/tensor-generated.go"; then
	echo "patch-gotch: malloc(0) output slots left in ts/tensor-generated.go" >&2
	exit 1
fi

# 2c. Automatic mixed precision: gotch has no binding for libtorch's autocast
# (the thread-local switch behind torch.autocast). Add a small one to libtch:
# hc_amp_set(cuda, enabled, bf16) turns autocast on or off for the calling OS
# thread; leaving it clears the cast-weight cache as torch.autocast's exit does.
# libtorch 2.4 renamed the calls; both spellings are handled.
cat >"$TMP/libtch/humchess_amp.h" <<'EOF'
// Added by scripts/patch-gotch.sh: libtorch autocast for HumChess's trainer.
#ifdef __cplusplus
extern "C" {
#endif
// hc_amp_set enables (enabled=1) or disables autocast for CUDA (cuda=1) or CPU
// ops of the calling thread, to bfloat16 (bf16=1) or float16. It returns 0, or
// -1 with the error in hc_amp_err.
int hc_amp_set(int cuda, int enabled, int bf16);
// hc_amp_enabled reports whether autocast is on for CUDA (cuda=1) or CPU ops.
int hc_amp_enabled(int cuda);
// hc_amp_err is the last error of hc_amp_set, "" if none.
const char *hc_amp_err(void);
#ifdef __cplusplus
}
#endif
EOF
cat >"$TMP/libtch/humchess_amp.cpp" <<'EOF'
// Added by scripts/patch-gotch.sh: libtorch autocast for HumChess's trainer.
#include <ATen/autocast_mode.h>
#include <torch/version.h>
#include <string>
#include "humchess_amp.h"

#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
#define HC_AMP_NEW_API 1
#endif

static thread_local std::string hc_err;

int hc_amp_set(int cuda, int enabled, int bf16) {
  hc_err.clear();
  try {
    at::ScalarType dt = bf16 ? at::kBFloat16 : at::kHalf;
#ifdef HC_AMP_NEW_API
    c10::DeviceType dev = cuda ? c10::DeviceType::CUDA : c10::DeviceType::CPU;
    if (enabled) {
      at::autocast::set_autocast_dtype(dev, dt);
      at::autocast::set_autocast_enabled(dev, true);
      at::autocast::increment_nesting();
    } else {
      at::autocast::set_autocast_enabled(dev, false);
      if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
    }
#else
    if (enabled) {
      if (cuda) {
        at::autocast::set_autocast_gpu_dtype(dt);
        at::autocast::set_enabled(true);
      } else {
        at::autocast::set_autocast_cpu_dtype(dt);
        at::autocast::set_cpu_enabled(true);
      }
      at::autocast::increment_nesting();
    } else {
      if (cuda) at::autocast::set_enabled(false);
      else at::autocast::set_cpu_enabled(false);
      if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
    }
#endif
  } catch (const std::exception &e) {
    hc_err = e.what();
    return -1;
  }
  return 0;
}

int hc_amp_enabled(int cuda) {
#ifdef HC_AMP_NEW_API
  return at::autocast::is_autocast_enabled(cuda ? c10::DeviceType::CUDA : c10::DeviceType::CPU) ? 1 : 0;
#else
  return (cuda ? at::autocast::is_enabled() : at::autocast::is_cpu_enabled()) ? 1 : 0;
#endif
}

const char *hc_amp_err(void) { return hc_err.c_str(); }
EOF
cat >"$TMP/libtch/humchess_amp.go" <<'EOF'
package libtch

// Added by scripts/patch-gotch.sh: libtorch autocast for HumChess's trainer.

// #include "humchess_amp.h"
import "C"

import "errors"

// AmpSet turns libtorch's autocast on or off for the calling OS thread (lock the
// goroutine to it), for CUDA or CPU ops, to bfloat16 or float16. Calls must
// pair: on, then off.
func AmpSet(cuda, enabled, bf16 bool) error {
	if C.hc_amp_set(hcBool(cuda), hcBool(enabled), hcBool(bf16)) != 0 {
		return errors.New("autocast: " + C.GoString(C.hc_amp_err()))
	}
	return nil
}

// AmpEnabled reports whether autocast is on for CUDA or CPU ops of this thread.
func AmpEnabled(cuda bool) bool { return C.hc_amp_enabled(hcBool(cuda)) != 0 }

func hcBool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}
EOF
g++ -std=c++17 -fsyntax-only -w -D_GLIBCXX_USE_CXX11_ABI="$ABI" -I"$TORCH_INC" -I"$TORCH_INC/torch/csrc/api/include" \
	"$TMP/libtch/humchess_amp.cpp"

# 3. Stub the wrappers that do not compile.
GEN="$TMP/libtch/torch_api_generated.cpp.h"
for pass in 1 2 3 4 5 6; do
	log="$TMP/syntax-$pass.log"
	if (cd "$TMP/libtch" && g++ -std=c++17 -fsyntax-only -w -D_GLIBCXX_USE_CXX11_ABI="$ABI" \
		-I. -I"$TORCH_INC" -I"$TORCH_INC/torch/csrc/api/include" torch_api.cpp) >"$log" 2>&1; then
		echo "patch-gotch: torch_api.cpp compiles (pass $pass)"
		rm -f "$TMP"/syntax-*.log
		break
	fi
	if [[ $pass == 6 ]]; then
		echo "patch-gotch: still failing after $pass passes; see $log" >&2
		exit 1
	fi
	if grep -qE '^torch_api\.(cpp|h):[0-9]+:[0-9]+: error' "$log"; then
		echo "patch-gotch: errors outside the generated wrappers; see $log" >&2
		exit 1
	fi
	# Failing line numbers (errors and "required from here" notes) -> the enclosing
	# wrapper -> a body that reports the op as unavailable.
	lines="$(grep -oE '^torch_api_generated\.cpp\.h:[0-9]+' "$log" | cut -d: -f2 | sort -un | tr '\n' ' ')"
	if [[ -z "$lines" ]]; then
		echo "patch-gotch: g++ failed without a line in the generated wrappers; see $log" >&2
		exit 1
	fi
	n="$(LINES_BAD="$lines" perl -i -ne '
		BEGIN { %bad = map { $_ => 1 } split " ", $ENV{LINES_BAD}; @buf = (); $n = 0 }
		# A wrapper starts at column 0 with "<type> atg_<name>(" and ends at "}".
		if (!@buf && /^(\w[\w\s\*]*?)\s*\b(atg_\w+)\(/) { @buf = ($_); $ret = $1; $name = $2; $hit = $bad{$.}; next }
		if (@buf) {
			push @buf, $_; $hit ||= $bad{$.};
			if (/^}\s*$/) {
				if ($hit) {
					my $sig = "";
					for my $l (@buf) { $sig .= $l; last if $l =~ /\{\s*$/ }
					my $r = ($ret =~ /^\s*void\s*$/) ? "" : " return 0;";
					print $sig, "  torch_last_err = strdup(\"$name: not available in this libtorch (stubbed by scripts/patch-gotch.sh)\");$r\n}\n";
					$n++;
				} else { print @buf }
				@buf = ();
			}
			next;
		}
		print;
		END { print STDERR "$n\n" }
	' "$GEN" 2>&1 >/dev/null)" || true
	# perl -i writes the file and prints the count on stderr (captured above).
	echo "patch-gotch: pass $pass stubbed $n wrappers"
	if [[ "$n" == 0 ]]; then
		echo "patch-gotch: failing lines are not inside any wrapper; see $log" >&2
		exit 1
	fi
done

rm -rf "$OUT"
mv "$TMP" "$OUT"

# 4. Build the cgo package into the Go build cache (about 2 minutes on 2 cores).
if [[ "${GOTCH_SKIP_BUILD:-0}" != 1 ]]; then
	echo "patch-gotch: building github.com/sugarme/gotch/libtch (slow, once)"
	(cd "$OUT" && go build ./libtch ./ts ./nn)
fi
echo "$key" >"$OUT/.stamp"
echo "patch-gotch: $OUT ready (libtorch $TORCH_LIB, cuda=$CUDA)"
