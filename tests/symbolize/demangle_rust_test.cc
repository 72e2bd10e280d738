// Rust demangling as perf 6.1 prints it (libiberty's rust_demangle, DMGL_NO_OPTS, then
// perf's own legacy pass). The vectors are published ones: libiberty's
// testsuite/rust-demangle-expected (legacy) and rustc-demangle's v0 tests (their
// "alternate" form, without crate disambiguators, which is what libiberty prints
// without DMGL_VERBOSE); the fixture names come from tests/scenario/fixtures/rust/,
// checked against perf 6.1's output there.
#include "gtest/gtest.h"
#include "symbolize/demangle.h"

namespace perflens {
namespace {

TEST(DemangleRustTest, LegacyDropsTheHashAndDecodesEscapes) {
  EXPECT_EQ(DemangleLikePerf("_ZN4main4main17he714a2e23ed7db23E"), "main::main");
  EXPECT_EQ(DemangleLikePerf("_ZN71_$LT$Test$u20$$u2b$$u20$$u27$static$u20$as$u20$foo..Bar$LT$Test$GT$$GT$"
                             "3bar17h930b740aa94f1d3aE"),
            "<Test + 'static as foo::Bar<Test>>::bar");
  EXPECT_EQ(DemangleLikePerf("_ZN54_$LT$I$u20$as$u20$core..iter..traits..IntoIterator$GT$9into_iter17h8581507801fb8615E"),
            "<I as core::iter::traits::IntoIterator>::into_iter");
  EXPECT_EQ(DemangleLikePerf("_ZN4core3ptr31_$LT$impl$u20$$BP$mut$u20$T$GT$7is_null17h7f9de798bc3f0879E"),
            "core::ptr::<impl *mut T>::is_null");
  EXPECT_EQ(DemangleLikePerf("_ZN53_$LT$$u5b$T$u5d$$u20$as$u20$core..slice..SliceExt$GT$10as_mut_ptr17h153241df1c7d1666E"),
            "<[T] as core::slice::SliceExt>::as_mut_ptr");
  EXPECT_EQ(DemangleLikePerf("_ZN75_$LT$$RF$$u27$a$u20$mut$u20$I$u20$as$u20$core..iter..iterator..Iterator$GT$"
                             "4next17ha050492063e0fd20E"),
            "<&'a mut I as core::iter::iterator::Iterator>::next");
  // From the fixture's legacy binary (rustc 1.95): $u7b$, $u3b$.
  EXPECT_EQ(DemangleLikePerf("_ZN3std2rt10lang_start28_$u7b$$u7b$closure$u7d$$u7d$17h5bf0117bcf949c2fE"),
            "std::rt::lang_start::{{closure}}");
  EXPECT_EQ(DemangleLikePerf("_ZN62_$LT$$u5b$u8$u3b$$u20$4$u5d$$u20$as$u20$rust_shapes..Shape$GT$"
                             "4area17hf219f776387919dfE"),
            "<[u8; 4] as rust_shapes::Shape>::area");
  // An LLVM suffix after the E is ignored.
  EXPECT_EQ(DemangleLikePerf("_ZN11rust_shapes4spin17h247009b7f130d5b5E.llvm.12345"), "rust_shapes::spin");
}

TEST(DemangleRustTest, LegacyHashMustBeSixteenHexDigits) {
  // Not Rust: libiberty's C++ demangler keeps the last component (rust-demangle-expected).
  EXPECT_EQ(DemangleLikePerf("_ZN4main4main18h1e714a2e23ed7db23E"), "main::main::h1e714a2e23ed7db23");
  EXPECT_EQ(DemangleLikePerf("_ZN4main4main16h714a2e23ed7db23E"), "main::main::h714a2e23ed7db23");
  EXPECT_EQ(DemangleLikePerf("_ZN4main4main17he714a2e23ed7db2gE"), "main::main::he714a2e23ed7db2g");
  EXPECT_EQ(DemangleRust("_ZN4main4main17he714a2e23ed7db2gE"), "");
}

TEST(DemangleRustTest, PerfsOwnLegacyPassAfterCxx) {
  // libiberty's Rust demangler declines a versioned name; its C++ one ignores the
  // trailing text and perf's own pass then drops the hash.
  EXPECT_EQ(DemangleRust("_ZN3foo3bar17h0000000000012345E@@V1"), "");
  EXPECT_EQ(DemangleLikePerf("_ZN3foo3bar17h0000000000012345E@@V1"), "foo::bar");
  // perf's pass wants 5 to 15 distinct hash digits.
  EXPECT_EQ(DemangleLikePerf("_ZN3foo3bar17h0000000000000123E@@V1"), "foo::bar::h0000000000000123");
}

TEST(DemangleRustTest, V0) {
  EXPECT_EQ(DemangleLikePerf("_RNvC6_123foo3bar"), "123foo::bar");
  EXPECT_EQ(DemangleLikePerf("_RNqCs4fqI2P2rA04_11utf8_identsu30____7hkackfecea1cbdathfdh9hlq6y"),
            "utf8_idents::\u10e1\u10d0\u10ed\u10db\u10d4\u10da\u10d0\u10d3_\u10d2\u10d4\u10db\u10e0\u10d8\u10d4"
            "\u10da\u10d8_\u10e1\u10d0\u10d3\u10d8\u10da\u10d8");
  EXPECT_EQ(DemangleLikePerf("_RNCNCNgCs6DXkGYLi8lr_2cc5spawn00B5_"), "cc::spawn::{closure#0}::{closure#0}");
  EXPECT_EQ(DemangleLikePerf("_RNCINkXs25_NgCsbmNqQUJIY6D_4core5sliceINyB9_4IterhENuNgNoBb_4iter8iterator8Iterator"
                             "9rpositionNCNgNpB9_6memchr7memrchrs_0E0Bb_"),
            "<core::slice::Iter<u8> as core::iter::iterator::Iterator>::rposition::<core::slice::memchr::memrchr::"
            "{closure#1}>::{closure#0}");
  EXPECT_EQ(DemangleLikePerf("_RINbNbCskIICzLVDPPb_5alloc5alloc8box_freeDINbNiB4_5boxed5FnBoxuEp6OutputuEL_"
                             "ECs1iopQbuBiw2_3std"),
            "alloc::alloc::box_free::<dyn alloc::boxed::FnBox<(), Output = ()>>");
  EXPECT_EQ(DemangleLikePerf("_RMCs4fqI2P2rA04_13const_genericINtB0_4CharKc76_E"), "<const_generic::Char<'v'>>");
  // A "." suffix is ignored.
  EXPECT_EQ(DemangleLikePerf("_RNvC9backtrace3foo.llvm.A5310EB9"), "backtrace::foo");
  // From the fixture's v0 binary.
  EXPECT_EQ(DemangleLikePerf("_RNvXs0_CshXDOm5BryCA_11rust_shapesAhj4_NtB5_5Shape4area"),
            "<[u8; 4] as rust_shapes::Shape>::area");
  EXPECT_EQ(DemangleLikePerf("_RINvNtNtCshXDOm5BryCA_11rust_shapes5inner6deeper5applyNCNvB6_4mains_0EB6_"),
            "rust_shapes::inner::deeper::apply::<rust_shapes::main::{closure#1}>");
  EXPECT_EQ(DemangleLikePerf("_RNCINvNtCsjrHSEGnQ3l9_3std2rt10lang_startuE0CshXDOm5BryCA_11rust_shapes"),
            "std::rt::lang_start::<()>::{closure#0}");
}

TEST(DemangleRustTest, NotRust) {
  EXPECT_EQ(DemangleLikePerf("RSA_new"), "");
  EXPECT_EQ(DemangleLikePerf("_R"), "");
  EXPECT_EQ(DemangleLikePerf("_RNvC"), "");
  EXPECT_EQ(DemangleRust("_ZN3FooclEi"), "");
  EXPECT_EQ(DemangleLikePerf("_ZN3FooclEi"), "Foo::operator()");  // C++ still goes the C++ way
  EXPECT_TRUE(MaybeMangled("_RNvC6_123foo3bar"));
  EXPECT_TRUE(MaybeMangled("_ZN3FooclEi"));
  EXPECT_FALSE(MaybeMangled("main"));
}

}  // namespace
}  // namespace perflens
