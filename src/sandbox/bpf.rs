//! Classic BPF programs for seccomp, written with named places instead of
//! counted jumps: a filter is a list of [`Step`]s, and [`assemble`] turns
//! each jump's target into the offset the kernel wants, refusing a target
//! that is missing, behind the jump or too far. Nothing allocates: a
//! command's filter is made in its forked child, between fork and exec.

/// A place a jump names (each filter marks the ones it uses).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// The check of the child's own `execve` (its three addresses).
    CheckFirst,
    /// The check of the listener's hand-over (`sendmsg`).
    CheckHandover,
    /// The check of a `socket` call's family.
    CheckSocket,
    /// The call runs.
    Allow,
    /// The supervisor is asked.
    Notify,
    /// The process ends (another architecture's call).
    Kill,
    /// The call fails with `ENOSYS`.
    NoSuchCall,
    /// The call fails with `EACCES`.
    Refused,
}

/// How many places there are.
const PLACES: usize = 8;

/// Where a jump goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// The instruction after the jump.
    Next,
    /// A named place.
    At(Place),
}

/// One step of a filter as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// Marks the next instruction as this place (no instruction itself).
    Here(Place),
    /// Load the word at this offset of `seccomp_data` into the accumulator.
    Load(u32),
    /// To the first target when the accumulator equals the value, else to
    /// the second.
    IfEqual(u32, Target, Target),
    /// To the first target when the accumulator is at least the value,
    /// else to the second.
    IfAtLeast(u32, Target, Target),
    /// Return this verdict.
    Return(u32),
}

/// Why steps did not assemble.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AssembleError {
    /// A jump names a place no step marks.
    Missing(Place),
    /// A jump names a place at or before itself (BPF jumps forward only).
    Backward(Place),
    /// A jump names a place more than 255 instructions on.
    TooFar(Place),
    /// The steps hold another number of instructions than the program.
    Length {
        /// The program's length.
        wanted: usize,
        /// The instructions the steps hold.
        got: usize,
    },
}

/// The `N` instructions `sections` spell one after another, every jump
/// resolved.
pub fn assemble<const N: usize>(
    sections: &[&[Step]],
) -> Result<[libc::sock_filter; N], AssembleError> {
    let steps = || sections.iter().flat_map(|section| section.iter());
    let mut places = [usize::MAX; PLACES];
    let mut count = 0;
    for step in steps() {
        match step {
            Step::Here(place) => places[*place as usize] = count,
            _ => count += 1,
        }
    }
    if count != N {
        return Err(AssembleError::Length {
            wanted: N,
            got: count,
        });
    }
    let mut program = [instruction(0, 0, 0, 0); N];
    let mut pc = 0;
    for step in steps() {
        program[pc] = match *step {
            Step::Here(_) => continue,
            Step::Load(offset) => {
                instruction(libc::BPF_LD | libc::BPF_W | libc::BPF_ABS, offset, 0, 0)
            }
            Step::Return(verdict) => instruction(libc::BPF_RET | libc::BPF_K, verdict, 0, 0),
            Step::IfEqual(value, yes, no) => instruction(
                libc::BPF_JMP | libc::BPF_JEQ | libc::BPF_K,
                value,
                skip(&places, pc, yes)?,
                skip(&places, pc, no)?,
            ),
            Step::IfAtLeast(value, yes, no) => instruction(
                libc::BPF_JMP | libc::BPF_JGE | libc::BPF_K,
                value,
                skip(&places, pc, yes)?,
                skip(&places, pc, no)?,
            ),
        };
        pc += 1;
    }
    Ok(program)
}

/// The instructions a jump at `pc` skips to reach `target`.
fn skip(places: &[usize; PLACES], pc: usize, target: Target) -> Result<u8, AssembleError> {
    let Target::At(place) = target else {
        return Ok(0);
    };
    match places[place as usize] {
        usize::MAX => Err(AssembleError::Missing(place)),
        to if to <= pc => Err(AssembleError::Backward(place)),
        to => u8::try_from(to - pc - 1).map_err(|_| AssembleError::TooFar(place)),
    }
}

const fn instruction(code: u32, k: u32, jt: u8, jf: u8) -> libc::sock_filter {
    libc::sock_filter {
        code: code as u16,
        jt,
        jf,
        k,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Place::*;
    use Step::*;
    use Target::*;

    #[test]
    fn jumps_count_the_instructions_between_not_the_marks() {
        let program: [libc::sock_filter; 4] = assemble(&[
            &[Load(0), IfEqual(7, At(Allow), Next)],
            &[Here(Kill), Return(1), Here(Allow), Return(2)],
        ])
        .expect("assembles");
        assert_eq!((program[1].jt, program[1].jf), (1, 0));
        assert_eq!(program[1].k, 7);
        assert_eq!(program[3].k, 2);
    }

    #[test]
    fn a_wrong_target_or_length_is_refused() {
        let missing = assemble::<2>(&[&[Load(0), IfEqual(1, At(Allow), Next)]]);
        assert_eq!(missing.err(), Some(AssembleError::Missing(Allow)));
        let backward = assemble::<2>(&[&[Here(Allow), Load(0), IfEqual(1, At(Allow), Next)]]);
        assert_eq!(backward.err(), Some(AssembleError::Backward(Allow)));
        let mut far = [Return(0); 300];
        far[0] = IfEqual(1, At(Allow), Next);
        far[298] = Here(Allow);
        assert_eq!(
            assemble::<299>(&[&far]).err(),
            Some(AssembleError::TooFar(Allow))
        );
        assert_eq!(
            assemble::<3>(&[&[Load(0), Return(0)]]).err(),
            Some(AssembleError::Length { wanted: 3, got: 2 })
        );
    }
}
