//! What Cranelift keeps though nothing uses it, removed from a function before it compiles:
//! block parameters that only flow into other unused parameters (a struct's leaves joined
//! after an element read of which the code uses one field), then the loads whose values
//! nothing uses. Cranelift's own passes drop unused pure instructions, but keep every load
//! (it may trap) and every block parameter.

use std::collections::HashMap;

use cranelift_codegen::entity::{EntitySet, SecondaryMap};
use cranelift_codegen::ir::{BlockArg, Function, InstructionData, Value};

/// Remove the unused block parameters, then the unused loads.
pub(super) fn remove_dead_code(func: &mut Function) {
    remove_dead_block_params(func);
    remove_dead_loads(func);
}

/// Remove every parameter of a block other than the entry block that nothing uses but
/// branches passing it to parameters that are themselves unused, with the argument every
/// branch passes for it.
fn remove_dead_block_params(func: &mut Function) {
    let Some(entry) = func.layout.entry_block() else {
        return;
    };
    // The values instructions use other than as branch arguments, and for each block
    // parameter the values branches pass to it.
    let mut live: EntitySet<Value> = EntitySet::with_capacity(func.dfg.num_values());
    let mut incoming: SecondaryMap<Value, Vec<Value>> = SecondaryMap::new();
    let mut work: Vec<Value> = Vec::new();
    for block in func.layout.blocks() {
        for inst in func.layout.block_insts(block) {
            for &v in func.dfg.inst_args(inst) {
                work.push(func.dfg.resolve_aliases(v));
            }
            let data = &func.dfg.insts[inst];
            for call in data.branch_destination(&func.dfg.jump_tables, &func.dfg.exception_tables) {
                let target = call.block(&func.dfg.value_lists);
                let params = func.dfg.block_params(target);
                for (k, arg) in call.args(&func.dfg.value_lists).enumerate() {
                    match arg {
                        BlockArg::Value(v) => incoming[params[k]].push(func.dfg.resolve_aliases(v)),
                        // A value only the branch defines: the parameter is kept.
                        _ => work.push(params[k]),
                    }
                }
            }
        }
    }
    work.extend(func.dfg.block_params(entry).iter().copied());
    while let Some(v) = work.pop() {
        if live.insert(v) {
            work.extend(incoming[v].iter().copied());
        }
    }
    let blocks: Vec<_> = func.layout.blocks().filter(|&b| b != entry).collect();
    let mut removed: HashMap<_, Vec<usize>> = HashMap::new();
    for &block in &blocks {
        let params = func.dfg.block_params(block).to_vec();
        for (k, p) in params.iter().enumerate().rev() {
            if !live.contains(*p) {
                removed.entry(block).or_default().push(k);
                func.dfg.remove_block_param(*p);
            }
        }
    }
    if removed.is_empty() {
        return;
    }
    let insts: Vec<_> = blocks
        .iter()
        .chain(std::iter::once(&entry))
        .flat_map(|&b| func.layout.block_insts(b).collect::<Vec<_>>())
        .collect();
    for inst in insts {
        let dfg = &mut func.dfg;
        let data = &mut dfg.insts[inst];
        for call in data.branch_destination_mut(&mut dfg.jump_tables, &mut dfg.exception_tables) {
            let target = call.block(&dfg.value_lists);
            // Positions in descending order, so each removal leaves the next one in place.
            for &k in removed.get(&target).into_iter().flatten() {
                call.remove(k, &mut dfg.value_lists);
            }
        }
    }
}

/// Remove the loads whose values nothing uses (the leaves of a struct read whole of which the
/// code uses a few, a view fetched for a path not taken). Lowering marks a load `notrap` only
/// where its address is valid, so it has no effect but its value; Cranelift keeps every load,
/// used or not.
fn remove_dead_loads(func: &mut Function) {
    loop {
        let mut used: EntitySet<Value> = EntitySet::with_capacity(func.dfg.num_values());
        for block in func.layout.blocks() {
            for inst in func.layout.block_insts(block) {
                for v in func.dfg.inst_values(inst) {
                    used.insert(func.dfg.resolve_aliases(v));
                }
            }
        }
        let mut dead = Vec::new();
        for block in func.layout.blocks() {
            for inst in func.layout.block_insts(block) {
                if let InstructionData::Load { flags, .. } = func.dfg.insts[inst] {
                    let unused = func
                        .dfg
                        .inst_results(inst)
                        .iter()
                        .all(|r| !used.contains(func.dfg.resolve_aliases(*r)));
                    if func.dfg.mem_flags[flags].notrap() && unused {
                        dead.push(inst);
                    }
                }
            }
        }
        if dead.is_empty() {
            return;
        }
        for inst in dead {
            func.layout.remove_inst(inst);
        }
    }
}

#[cfg(test)]
mod tests {
    use cranelift_codegen::ir::{
        types, AbiParam, Function, InstBuilder, MemFlagsData, Signature, UserFuncName,
    };
    use cranelift_codegen::isa::CallConv;
    use cranelift_codegen::settings;
    use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};

    /// A function of one address that loads two values, passes both to a join block, and
    /// returns only the first there.
    fn join_of_two_loads() -> Function {
        let mut sig = Signature::new(CallConv::SystemV);
        sig.params.push(AbiParam::new(types::I64));
        sig.returns.push(AbiParam::new(types::I64));
        let mut func = Function::with_name_signature(UserFuncName::default(), sig);
        let mut context = FunctionBuilderContext::new();
        let mut b = FunctionBuilder::new(&mut func, &mut context);
        let entry = b.create_block();
        let join = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let addr = b.block_params(entry)[0];
        let flags = MemFlagsData::trusted();
        let first = b.ins().load(types::I64, flags, addr, 0);
        let second = b.ins().load(types::I64, flags, addr, 8);
        let used = b.append_block_param(join, types::I64);
        b.append_block_param(join, types::I64);
        b.ins().jump(join, &[first.into(), second.into()]);
        b.switch_to_block(join);
        b.ins().return_(&[used]);
        b.seal_all_blocks();
        let isa = cranelift_native::builder()
            .expect("this machine is a Cranelift target")
            .finish(settings::Flags::new(settings::builder()))
            .expect("the default flags");
        b.finalize(isa.frontend_config());
        func
    }

    #[test]
    fn a_join_parameter_nothing_uses_goes_with_the_load_feeding_it() {
        let mut func = join_of_two_loads();
        super::remove_dead_code(&mut func);
        let text = func.display().to_string();
        assert_eq!(text.matches(" load.i64 ").count(), 1, "{text}");
        let join = func.layout.blocks().nth(1).expect("the join block");
        assert_eq!(func.dfg.num_block_params(join), 1, "{text}");
        assert!(text.contains("jump block1(v1)"), "{text}");
    }
}
