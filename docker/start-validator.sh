#!/usr/bin/env bash
# Prepares a Sawtooth 1.2 validator container, then runs the validator command given after `--`.
#
#   start-validator.sh devmode -- sawtooth-validator ...
#       A one-node network: on first start, make the node's keys and a genesis block that selects
#       Devmode consensus and BlockInfo (below).
#   start-validator.sh pbft NAME [--genesis NAME,NAME,...] -- sawtooth-validator ...
#       A PBFT member: publish this node's public key as $XO_PBFT_KEYS_DIR/NAME.pub. With --genesis
#       (one node of the network), wait until every listed member has published its key, then make a
#       genesis block that selects PBFT with exactly those members, and BlockInfo. The other nodes
#       receive the genesis block from their peers.
#
# BlockInfo: every block a validator publishes starts with a block_info transaction that it injects
# itself (the previous block's number and id, and a timestamp), and a block is valid only if its first
# transaction, and no other, is block_info, signed by the block's signer. That is what makes the
# BlockInfo in state trustworthy enough for rps time-outs (docs/rps-family.md). It needs the
# block_info processor (block-info-tp) beside every validator.
#
# chips: with XO_CHIPS_ISSUER_KEY_FILE naming a public key file, the genesis block also sets chips.issuers to
# that key, as xo-devnet's genesis does, so chips can be issued from the first block (docs/chips-operators.md).
# The compose files name chips-issuer.pub in the players' keys volume, made by their chips-issuer-key service,
# so that the shell holds the private key. Unset, the network has no chips issuer until one is proposed with sawset.
# With XO_CHIPS_MIN_CHALLENGE_SECONDS (whole seconds, 1 to 30 days), the genesis block sets
# chips.min_challenge_seconds, the shortest challenge a channel may fix (the compose files give 600, chips-tp's
# own default; their test files 1, so that the suite's challenges run out at once). Unset, chips-tp's 600 s holds.
#
# Keys and chain live on volumes: a restarted node keeps its identity and its chain, and a genesis
# block is only made by a node that has neither a chain nor a pending genesis batch. A member whose
# published key is not its own refuses to start: its keys were remade while the shared volume kept the
# old key, which a genesis block may already name, so the network must start afresh (`down -v`).
# Paths follow Sawtooth's own: $SAWTOOTH_HOME/keys and $SAWTOOTH_HOME/data when SAWTOOTH_HOME is set,
# else /etc/sawtooth/keys and /var/lib/sawtooth (where the compose files mount the node's volumes).
# Sourced rather than run, it only sets those paths (KEY_DIR, DATA_DIR, PBFT_KEYS_DIR).
set -euo pipefail

KEY_DIR=${SAWTOOTH_HOME:+$SAWTOOTH_HOME/keys}
KEY_DIR=${KEY_DIR:-/etc/sawtooth/keys}
DATA_DIR=${SAWTOOTH_HOME:+$SAWTOOTH_HOME/data}
DATA_DIR=${DATA_DIR:-/var/lib/sawtooth}
PBFT_KEYS_DIR=${XO_PBFT_KEYS_DIR:-/pbft-keys}
MEMBER_WAIT_SECONDS=${XO_PBFT_MEMBER_WAIT_SECONDS:-600}
CHIPS_ISSUER_KEY_FILE=${XO_CHIPS_ISSUER_KEY_FILE:-}
CHIPS_MIN_CHALLENGE_SECONDS=${XO_CHIPS_MIN_CHALLENGE_SECONDS:-}
MAX_CHALLENGE_SECONDS=$((30 * 24 * 3600))
# The on-chain settings for BlockInfo, in every genesis block. Rules are `name:arguments`, separated by `;`:
# NofX:1,block_info at most one block_info transaction per block; XatY:block_info,0 the first transaction
# is block_info; local:0 the first transaction is signed by the block's signer. No BlockInfo settings of its
# own: the block_info processor keeps its defaults (256 blocks in state, 300 s clock tolerance).
BLOCK_INFO_SETTINGS=(
    sawtooth.validator.batch_injectors=block_info
    "sawtooth.validator.block_validation_rules=NofX:1,block_info;XatY:block_info,0;local:0"
)

usage() {
    echo "usage: start-validator.sh devmode -- COMMAND..." >&2
    echo "       start-validator.sh pbft NAME [--genesis NAME,NAME,...] -- COMMAND..." >&2
    exit 2
}

fail() {
    echo "start-validator: $*" >&2
    exit 1
}

log() {
    echo "start-validator: $*"
}

# The hex public key in a .pub file, without its newline.
public_key_in() {
    tr -d '[:space:]' <"$1"
}

# sawadm needs both directories to exist; volumes mounted there do, a new $SAWTOOTH_HOME may not.
ensure_validator_key() {
    mkdir -p "$KEY_DIR" "$DATA_DIR"
    if [[ ! -e $KEY_DIR/validator.priv ]]; then
        sawadm keygen
    fi
}

has_chain_or_pending_genesis() {
    [[ -e $DATA_DIR/block-chain-id || -e $DATA_DIR/genesis.batch ]]
}

# The chips issuer's public key (66 hex digits, compressed) from XO_CHIPS_ISSUER_KEY_FILE; fails if it is
# missing or not a key, before any genesis is made.
chips_issuer_key() {
    [[ -s $CHIPS_ISSUER_KEY_FILE ]] ||
        fail "no chips issuer key in $CHIPS_ISSUER_KEY_FILE (XO_CHIPS_ISSUER_KEY_FILE): the compose files'" \
            "chips-issuer-key service makes it before the validator starts"
    local key
    key=$(public_key_in "$CHIPS_ISSUER_KEY_FILE")
    [[ $key =~ ^0[23][0-9a-f]{64}$ ]] || fail "$CHIPS_ISSUER_KEY_FILE holds no public key (66 hex digits)"
    echo "$key"
}

# The chips challenge floor from XO_CHIPS_MIN_CHALLENGE_SECONDS, as chips-tp reads its setting: whole seconds,
# 1 to 30 days; fails on anything else, before any genesis is made.
chips_min_challenge() {
    [[ $CHIPS_MIN_CHALLENGE_SECONDS =~ ^[1-9][0-9]{0,7}$ ]] && ((CHIPS_MIN_CHALLENGE_SECONDS <= MAX_CHALLENGE_SECONDS)) ||
        fail "XO_CHIPS_MIN_CHALLENGE_SECONDS must be whole seconds from 1 to $MAX_CHALLENGE_SECONDS," \
            "not '$CHIPS_MIN_CHALLENGE_SECONDS'"
    echo "$CHIPS_MIN_CHALLENGE_SECONDS"
}

# Writes $DATA_DIR/genesis.batch: the validator key may change settings, BlockInfo, the chips issuer and
# challenge floor when they are given, plus the given (consensus) settings.
make_genesis() {
    local work issuer="" floor=""
    local -a chips=()
    if [[ -n $CHIPS_ISSUER_KEY_FILE ]]; then
        issuer=$(chips_issuer_key)
        log "chips.issuers: $issuer ($CHIPS_ISSUER_KEY_FILE)"
        chips+=("chips.issuers=$issuer")
    fi
    if [[ -n $CHIPS_MIN_CHALLENGE_SECONDS ]]; then
        floor=$(chips_min_challenge)
        log "chips.min_challenge_seconds: $floor"
        chips+=("chips.min_challenge_seconds=$floor")
    fi
    # One proposal batch for every setting: each Sawtooth tool run costs a Python start, and a validator's first
    # start (keys and genesis) took 50 s on a busy 2-core machine with one batch per kind of setting.
    work=$(mktemp -d)
    local -a batches=("$work/settings-admin.batch" "$work/settings.batch")
    sawset genesis -k "$KEY_DIR/validator.priv" -o "$work/settings-admin.batch"
    sawset proposal create -k "$KEY_DIR/validator.priv" -o "$work/settings.batch" \
        "$@" "${BLOCK_INFO_SETTINGS[@]}" "${chips[@]}"
    sawadm genesis "${batches[@]}"
    rm -rf "$work"
}

# Prints the members' public keys as the JSON list sawtooth.consensus.pbft.members expects.
pbft_members_json() {
    local name key json=""
    for name in "$@"; do
        key=$(public_key_in "$PBFT_KEYS_DIR/$name.pub")
        json+="${json:+,}\"$key\""
    done
    echo "[$json]"
}

wait_for_member_keys() {
    local deadline=$((SECONDS + MEMBER_WAIT_SECONDS)) name missing
    while true; do
        missing=()
        for name in "$@"; do
            [[ -s $PBFT_KEYS_DIR/$name.pub ]] || missing+=("$name")
        done
        ((${#missing[@]} == 0)) && return 0
        ((SECONDS >= deadline)) && fail "gave up after ${MEMBER_WAIT_SECONDS}s waiting for the keys of: ${missing[*]}"
        log "waiting for the public keys of: ${missing[*]}"
        sleep 1
    done
}

start_devmode() {
    ensure_validator_key
    if has_chain_or_pending_genesis; then
        log "chain found in $DATA_DIR: no genesis needed"
    else
        log "making a Devmode genesis block"
        make_genesis sawtooth.consensus.algorithm.name=Devmode sawtooth.consensus.algorithm.version=0.1
    fi
}

# Publishes this node's public key as NAME.pub, unless another key is published under its name.
publish_key() {
    local name=$1 published=$PBFT_KEYS_DIR/$1.pub
    mkdir -p "$PBFT_KEYS_DIR"
    if [[ -e $published ]]; then
        [[ $(public_key_in "$published") == "$(public_key_in "$KEY_DIR/validator.pub")" ]] ||
            fail "$published is not this node's public key ($KEY_DIR/validator.pub): its keys were remade" \
                "but the shared keys volume kept the old one, which a genesis block may name." \
                "Start the whole network afresh: docker compose -f docker/docker-compose-pbft.yaml down -v"
        return 0
    fi
    cp "$KEY_DIR/validator.pub" "$published.tmp"
    mv "$published.tmp" "$published"
}

start_pbft() {
    local name=$1 genesis_members=$2
    ensure_validator_key
    publish_key "$name"
    if [[ -z $genesis_members ]]; then
        return 0
    fi
    if has_chain_or_pending_genesis; then
        log "chain found in $DATA_DIR: no genesis needed"
        return 0
    fi
    local -a members
    IFS=, read -r -a members <<<"$genesis_members"
    wait_for_member_keys "${members[@]}"
    log "making a PBFT genesis block with members: ${members[*]}"
    make_genesis sawtooth.consensus.algorithm.name=pbft sawtooth.consensus.algorithm.version=1.0 \
        "sawtooth.consensus.pbft.members=$(pbft_members_json "${members[@]}")"
}

check_node_names() {
    local name
    for name in "$@"; do
        [[ $name =~ ^[A-Za-z0-9_.-]+$ ]] || fail "bad node name: '$name'"
    done
}

main() {
    (($# >= 1)) || usage
    local consensus=$1 name="" genesis_members=""
    shift
    case $consensus in
        devmode) ;;
        pbft)
            [[ $# -ge 1 && $1 != -- ]] || usage
            name=$1
            shift
            check_node_names "$name"
            if [[ ${1:-} == --genesis ]]; then
                (($# >= 2)) || usage
                genesis_members=$2
                shift 2
                local -a members
                IFS=, read -r -a members <<<"$genesis_members"
                ((${#members[@]} >= 4)) || fail "PBFT needs at least 4 members, got: '$genesis_members'"
                check_node_names "${members[@]}"
                [[ ,$genesis_members, == *,"$name",* ]] || fail "$name makes the genesis block, so it must be a member"
            fi
            ;;
        *) usage ;;
    esac
    [[ ${1:-} == -- ]] || usage
    shift
    (($# >= 1)) || usage
    if [[ $consensus == devmode ]]; then
        start_devmode
    else
        start_pbft "$name" "$genesis_members"
    fi
    exec "$@"
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
    main "$@"
fi
