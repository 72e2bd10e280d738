# gdb-multiarch -batch -x capture.py, with the program stopped under qemu-aarch64 -g
# (make_arm64.sh). At each stop below writes what perf record --call-graph dwarf would
# have recorded and what the truth is:
#   STOP.regs   the user registers in perf's arm64 PERF_REG order (x0..x30, sp, pc), hex
#   STOP.stack  4096 bytes of stack from sp (perf's user stack copy)
#   STOP.chain  the pc, then the return address of each caller frame gdb unwinds
#               (tail-call frames, which gdb makes up from DWARF call sites and a CFI
#               unwinder cannot see, left out), one hex address a line, up to and
#               including the first frame past main (libc's)
import gdb

STOPS = [  # (name, breakpoint, condition)
    ("rotl_leaf", "*0x400820", None),                   # a leaf: return address in x30
    ("leafmix_prologue", "*0x400840", None),            # before str x30, [sp, #-16]!
    ("leafmix_body", "*0x400850", None),                # after it: ra at CFA - 16
    ("leafsum_from_middle", "*0x4007d0", "$x30 == 0x400888"),
    ("leafsum_tail_call", "*0x4007d0", "$x30 != 0x400888"),  # Checksum's b LeafSum
    ("now_after_call", "*0x400800", None),              # after bl clock_gettime@plt
]
OUT = __import__("os").environ["ARM64_OUT"]

gdb.execute("set pagination off")
gdb.execute("set backtrace past-main on")
gdb.execute("target remote :1234")
for name, loc, cond in STOPS:
    bp = gdb.Breakpoint(loc)
    if cond:
        bp.condition = cond
    gdb.execute("continue")
    regs = [int(gdb.parse_and_eval("$x%d" % i)) for i in range(31)]
    regs += [int(gdb.parse_and_eval("$sp")), int(gdb.parse_and_eval("$pc"))]
    regs = [r & (2**64 - 1) for r in regs]
    with open(f"{OUT}/{name}.regs", "w") as f:
        f.write(" ".join("%x" % r for r in regs) + "\n")
    gdb.execute(f"dump binary memory {OUT}/{name}.stack {regs[31]} {regs[31] + 4096}")
    pcs, past_main, frame = [], False, gdb.newest_frame()
    while frame is not None and not past_main:
        if frame.type() != gdb.TAILCALL_FRAME:
            pcs.append(frame.pc())
        past_main = frame.name() == "main"
        frame = frame.older()
    if past_main and frame is not None:
        pcs.append(frame.pc())
    with open(f"{OUT}/{name}.chain", "w") as f:
        f.write("".join("%x\n" % pc for pc in pcs))
    bp.delete()
gdb.execute("kill")
