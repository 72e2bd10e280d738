// A small Rust program for perflens's Rust demangling fixture: trait impls on generic
// types, arrays and references, a nested module and a closure, each hot enough to be
// sampled, none inlined; each does work after its call so that no call is a tail call.
use std::hint::black_box;

trait Shape {
    fn area(&self, n: u64) -> u64;
}

struct Square(u64);
struct Pair<T>(T, T);

impl Shape for Square {
    #[inline(never)]
    fn area(&self, n: u64) -> u64 {
        spin(self.0 ^ n).rotate_left(1)
    }
}

impl<T: Copy + Into<u64>> Shape for Pair<T> {
    #[inline(never)]
    fn area(&self, n: u64) -> u64 {
        spin(self.0.into() ^ self.1.into() ^ n).rotate_left(2)
    }
}

impl Shape for [u8; 4] {
    #[inline(never)]
    fn area(&self, n: u64) -> u64 {
        spin(u32::from_le_bytes(*self) as u64 ^ n).rotate_left(3)
    }
}

impl<'a> Shape for &'a str {
    #[inline(never)]
    fn area(&self, n: u64) -> u64 {
        spin(self.len() as u64 ^ n).rotate_left(4)
    }
}

mod inner {
    pub mod deeper {
        #[inline(never)]
        pub fn apply<F: Fn(u64) -> u64>(f: F, n: u64) -> u64 {
            f(n).rotate_left(5)
        }
    }
}

#[inline(never)]
fn spin(x: u64) -> u64 {
    let mut a = black_box(x);
    for i in 0..20000u64 {
        a = a.wrapping_mul(6364136223846793005).wrapping_add(i);
    }
    a
}

fn main() {
    let iters: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(300);
    let shapes: Vec<Box<dyn Shape>> = vec![
        Box::new(Square(3)),
        Box::new(Pair(7u32, 9u32)),
        Box::new([1u8, 2, 3, 4]),
        Box::new("perflens"),
    ];
    let mut acc = 0u64;
    for i in 0..iters {
        for s in &shapes {
            acc ^= s.area(i);
        }
        acc ^= inner::deeper::apply(|v| spin(v + 1), i);
    }
    println!("{}", acc);
}
