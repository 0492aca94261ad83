// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title AgentRig — the reference contract pricerig tests and devnet run against.
/// @notice Built from the two AgentRig seed documents: jobs, orders, the draw, commit and reveal
/// windows, relayed EIP-712 answers and settlement by agreement. What the seeds leave open (rig
/// registration and stake, events, the builder/staker split, where slashes go) is kept minimal and
/// written down in rig/README.md. It is a faithful model for tests, not an audited deployment.
/// @dev Time: windows use block.timestamp. Blocks: the draw seed uses blockhash(orderBlock). On
/// Robinhood Chain (Arbitrum Orbit) block.number is the L1 block number and its hash the last rollup
/// block sealed under it; plain block.number/blockhash keep that meaning here. Both are read through
/// _blockNumber and _blockHash only, which the devnet build (AgentRigDevnet.sol) overrides to read
/// the devnet's L1 clock; this contract's own behaviour is plain block.number/blockhash.
contract AgentRig {
    // ------------------------------------------------------------------------------------------
    // Limits from the seed's publishJob table and the task life.

    uint8 internal constant KIND_EXACT = 0;
    uint8 internal constant KIND_NUMERIC = 1;
    uint8 internal constant MIN_QUORUM = 2;
    uint8 internal constant MAX_QUORUM = 5;
    uint96 internal constant MIN_PRICE = 0.000001 ether;
    uint96 internal constant MAX_PRICE = 1 ether;
    uint96 internal constant MAX_SLASH = 0.01 ether;
    uint32 internal constant MAX_TOLERANCE_BPS = 2000;
    /// @notice The draw looks at no more than this many rigs of a job's list.
    uint256 internal constant MAX_SCAN = 64;
    /// @notice blockhash only reaches this far back; an older order block is re-anchored.
    uint256 internal constant BLOCKHASH_REACH = 256;
    /// @notice A task nobody drew within this time can be refunded by anyone.
    uint64 internal constant REFUND_AFTER = 1 hours;
    /// @notice The seed's commit and reveal windows, used when the constructor is given 0.
    uint64 internal constant DEFAULT_WINDOW = 4 minutes;
    /// @notice Share of an agreed task's price credited to the job's builder (assumption, README).
    uint16 internal constant BUILDER_BPS = 1000;
    uint256 private constant BPS = 10_000;

    // phaseOf values, as the seed numbers them (0: no such task).
    uint8 internal constant PHASE_NONE = 0;
    uint8 internal constant PHASE_DRAW = 1;
    uint8 internal constant PHASE_COMMIT = 2;
    uint8 internal constant PHASE_REVEAL = 3;
    uint8 internal constant PHASE_SETTLE = 4;
    uint8 internal constant PHASE_SETTLED = 5;
    uint8 internal constant PHASE_REFUNDED = 6;

    // Why a relayed entry was skipped (the Skipped event's reason).
    uint8 internal constant SKIP_BAD_SIGNATURE = 1;
    uint8 internal constant SKIP_WRONG_PHASE = 2;
    uint8 internal constant SKIP_NOT_DRAWN = 3;
    uint8 internal constant SKIP_ALREADY_DONE = 4;
    uint8 internal constant SKIP_NOT_COMMITTED = 5;
    uint8 internal constant SKIP_MISMATCH = 6;

    // Why a drawn rig lost its slash (the Slashed event's reason).
    uint8 internal constant SLASH_MISSED_COMMIT = 1;
    uint8 internal constant SLASH_MISSED_REVEAL = 2;
    uint8 internal constant SLASH_OUTSIDE_AGREEMENT = 3;

    // Why an account was credited (the Credited event's reason).
    uint8 internal constant CREDIT_RIG_REWARD = 1;
    uint8 internal constant CREDIT_OPERATOR_FEE = 2;
    uint8 internal constant CREDIT_BUILDER = 3;
    uint8 internal constant CREDIT_STAKER = 4;
    uint8 internal constant CREDIT_ORDERER = 5;
    uint8 internal constant CREDIT_TREASURY = 6;
    uint8 internal constant CREDIT_STAKE = 7;

    // EIP-712: domain {name "AgentRig", version "1", chainId, verifyingContract}.
    bytes32 private constant DOMAIN_TYPEHASH =
        keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)");
    bytes32 private constant NAME_HASH = keccak256("AgentRig");
    bytes32 private constant VERSION_HASH = keccak256("1");
    bytes32 internal constant COMMIT_TYPEHASH = keccak256("Commit(uint256 taskId,bytes32 commitment)");
    bytes32 internal constant REVEAL_TYPEHASH = keccak256("Reveal(uint256 taskId,bytes32 answer,bytes32 salt)");
    bytes32 internal constant OPERATOR_FEE_TYPEHASH =
        keccak256("OperatorFee(address operator,uint16 bps,address payee,uint256 nonce)");
    // Signatures with s in the upper half are the malleable twins of valid ones: refuse them.
    uint256 private constant HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0;

    // ------------------------------------------------------------------------------------------
    // Types.

    /// @notice A relayed commit, signed by the operator of a drawn rig.
    struct Commit {
        uint256 taskId;
        bytes32 commitment;
    }

    /// @notice A relayed reveal, signed by the operator of a drawn rig.
    struct Reveal {
        uint256 taskId;
        bytes32 answer;
        bytes32 salt;
    }

    /// @notice An operator's consent that `payee` (its relayer) takes `bps` of its rig earnings.
    struct OperatorFee {
        address operator;
        uint16 bps;
        address payee;
        uint256 nonce;
    }

    struct Job {
        address builder;
        uint8 kind;
        uint8 quorum;
        uint32 toleranceBps;
        uint96 price;
        uint96 slash;
        string specURI;
        // Active rigs only; deactivation swaps the last one into the gap, so the order changes.
        uint64[] rigs;
    }

    struct Rig {
        address operator; // the key that commits and reveals (or signs for a relayer)
        uint32 jobId;
        bool active;
        uint32 slot; // index in the job's rig list while active
        address owner; // who staked; gets the stake back and the staker share of slashes
        uint96 stake; // everything bonded, locked part included
        uint96 locked; // the job's slash for every task the rig is drawn in and not yet settled
    }

    enum Status {
        None,
        Ordered,
        Drawn,
        Settled,
        Refunded
    }

    struct Task {
        uint32 jobId;
        Status status;
        uint8 committed; // bit i: rigIds[i] committed
        uint8 revealed; // bit i: rigIds[i] revealed
        bool agreed;
        uint8 agree;
        uint8 reveals;
        uint64 orderBlock; // the draw's anchor; moved forward by a re-anchor
        uint64 orderedAt; // timestamp of the order, for the one-hour refund
        uint64 commitDeadline; // commits are taken while block.timestamp < commitDeadline
        uint64 revealDeadline; // reveals are taken while block.timestamp < revealDeadline
        address orderer;
        uint96 paid;
        bytes32 inputHash;
        bytes32 answer;
        uint64[] rigIds;
        bytes32[] commitments;
        bytes32[] answers;
    }

    /// @notice What jobOf returns.
    struct JobInfo {
        address builder;
        uint8 kind;
        uint8 quorum;
        uint96 price;
        uint96 slash;
        uint32 toleranceBps;
        string specURI;
        uint256 activeRigs;
    }

    /// @notice What rigOf returns.
    struct RigInfo {
        address operator;
        address owner;
        uint32 jobId;
        bool active;
        uint96 stake;
        uint96 locked;
    }

    /// @notice What taskOf returns. The arrays follow rigIds; masks have bit i for rigIds[i].
    struct TaskInfo {
        uint32 jobId;
        uint8 phase;
        address orderer;
        uint96 paid;
        bytes32 inputHash;
        uint64 orderBlock;
        uint64 orderedAt;
        uint64 commitDeadline;
        uint64 revealDeadline;
        uint64[] rigIds;
        uint8 committedMask;
        uint8 revealedMask;
        bytes32[] commitments;
        bytes32[] answers;
        bool agreed;
        bytes32 answer;
        uint8 agree;
    }

    // ------------------------------------------------------------------------------------------
    // State.

    /// @notice Length of the commit window, and of the reveal window.
    uint64 public immutable commitWindow;
    uint64 public immutable revealWindow;
    /// @notice Receives slashes that no agreeing rig earned (see README); the deployer.
    address public immutable treasury;

    /// @notice Ids are 1..count.
    uint32 public jobCount;
    uint64 public rigCount;
    uint256 public taskCount;

    mapping(uint32 => Job) private jobs;
    mapping(uint64 => Rig) private rigs;
    mapping(uint256 => Task) private tasks;

    /// @notice ETH an account can take out with withdraw().
    mapping(address => uint256) public credits;
    /// @notice The fee an operator consented to: payee and bps of its rig earnings.
    mapping(address => OperatorFee) public operatorFees;
    /// @notice Nonces of OperatorFee consents already used, per operator.
    mapping(address => mapping(uint256 => bool)) public usedNonces;

    // ------------------------------------------------------------------------------------------
    // Events: a rig runner learns everything it acts on from these, without reading storage.

    event JobPublished(
        uint32 indexed jobId,
        address indexed builder,
        uint8 kind,
        uint8 quorum,
        uint96 price,
        uint96 slash,
        uint32 toleranceBps,
        string specURI
    );
    event RigRegistered(
        uint64 indexed rigId, uint32 indexed jobId, address indexed operator, address owner, uint256 stake
    );
    event StakeChanged(uint64 indexed rigId, uint256 stake);
    event RigDeactivated(uint64 indexed rigId);
    event TaskOrdered(
        uint256 indexed taskId, uint32 indexed jobId, address indexed orderer, bytes32 inputHash, string inputURI
    );
    event Reanchored(uint256 indexed taskId, uint64 orderBlock);
    event TaskDrawn(
        uint256 indexed taskId, uint32 indexed jobId, uint64[] rigIds, uint64 commitDeadline, uint64 revealDeadline
    );
    event Committed(uint256 indexed taskId, uint64 indexed rigId, bytes32 commitment);
    /// @notice The reveal window opened early because every drawn rig committed.
    event RevealOpened(uint256 indexed taskId, uint64 revealDeadline);
    event Revealed(uint256 indexed taskId, uint64 indexed rigId, bytes32 answer);
    event Skipped(uint256 indexed taskId, uint256 index, uint8 reason);
    event Slashed(uint256 indexed taskId, uint64 indexed rigId, uint96 amount, uint8 reason);
    event Settled(uint256 indexed taskId, bool agreed, bytes32 answer, uint8 agree, uint8 reveals);
    event Refunded(uint256 indexed taskId, address indexed orderer, uint256 amount);
    event Credited(address indexed account, uint256 indexed taskId, uint256 amount, uint8 reason);
    event OperatorFeeSet(address indexed operator, address indexed payee, uint16 bps, uint256 nonce);
    event Withdrawn(address indexed account, uint256 amount);

    // ------------------------------------------------------------------------------------------
    // Errors.

    error BadKind(uint8 kind);
    error BadQuorum(uint8 quorum);
    error BadPrice(uint96 price);
    error BadSlash(uint96 slash);
    error BadTolerance(uint32 toleranceBps);
    error BadAnswers(uint256 count, uint8 quorum);
    error UnknownJob(uint32 jobId);
    error UnknownRig(uint64 rigId);
    error ZeroOperator();
    error StakeTooLow(uint256 stake, uint256 needed);
    error StakeTooHigh();
    error NotRigOwner(uint64 rigId);
    error RigInactive(uint64 rigId);
    error WrongValue(uint256 sent, uint256 expected);
    error NotEnoughRigs(uint256 active, uint8 quorum);
    error EmptyOrder();
    error LengthMismatch();
    error WrongPhase(uint8 phase);
    error TooEarly();
    error NotDrawn();
    error AlreadyDone();
    error NotCommitted();
    error CommitmentMismatch();
    error BadSignature();
    error BadBps(uint16 bps);
    error NonceUsed(uint256 nonce);
    error NothingToWithdraw();
    error TransferFailed();

    /// @param commitWindow_ seconds of the commit window; 0 for the seed's 4 minutes.
    /// @param revealWindow_ seconds of the reveal window; 0 for the seed's 4 minutes.
    constructor(uint64 commitWindow_, uint64 revealWindow_) {
        commitWindow = commitWindow_ == 0 ? DEFAULT_WINDOW : commitWindow_;
        revealWindow = revealWindow_ == 0 ? DEFAULT_WINDOW : revealWindow_;
        treasury = msg.sender;
    }

    // ------------------------------------------------------------------------------------------
    // Jobs and rigs.

    /// @notice Publishes a job with the seed's field limits. The caller is its builder.
    function publishJob(
        uint8 kind,
        uint8 quorum,
        uint96 price,
        uint96 slash,
        uint32 toleranceBps,
        string calldata specURI
    ) external returns (uint32 jobId) {
        _checkRule(kind, quorum, toleranceBps);
        if (price < MIN_PRICE || price > MAX_PRICE) revert BadPrice(price);
        if (slash > MAX_SLASH) revert BadSlash(slash);
        jobId = ++jobCount;
        Job storage job = jobs[jobId];
        job.builder = msg.sender;
        job.kind = kind;
        job.quorum = quorum;
        job.toleranceBps = toleranceBps;
        job.price = price;
        job.slash = slash;
        job.specURI = specURI;
        emit JobPublished(jobId, msg.sender, kind, quorum, price, slash, toleranceBps, specURI);
    }

    /// @notice Registers a rig on a job. The value is its stake, at least the job's slash: every
    /// task the rig is drawn in locks one slash of it until settlement. The caller owns the rig.
    function registerRig(uint32 jobId, address operator) external payable returns (uint64 rigId) {
        Job storage job = _job(jobId);
        if (operator == address(0)) revert ZeroOperator();
        if (msg.value < job.slash) revert StakeTooLow(msg.value, job.slash);
        if (msg.value > type(uint96).max) revert StakeTooHigh();
        rigId = ++rigCount;
        rigs[rigId] = Rig({
            operator: operator,
            jobId: jobId,
            active: true,
            slot: uint32(job.rigs.length),
            owner: msg.sender,
            stake: uint96(msg.value),
            locked: 0
        });
        job.rigs.push(rigId);
        emit RigRegistered(rigId, jobId, operator, msg.sender, msg.value);
    }

    /// @notice Adds stake to a rig (anyone may top a rig up; it stays the owner's).
    function addStake(uint64 rigId) external payable {
        Rig storage rig = _rig(rigId);
        uint256 stake = uint256(rig.stake) + msg.value;
        if (stake > type(uint96).max) revert StakeTooHigh();
        rig.stake = uint96(stake);
        emit StakeChanged(rigId, stake);
    }

    /// @notice Takes a rig out of its job's draws. Tasks it was already drawn in still count on it.
    /// The owner or the operator may do it.
    function deactivateRig(uint64 rigId) external {
        Rig storage rig = _rig(rigId);
        if (msg.sender != rig.owner && msg.sender != rig.operator) revert NotRigOwner(rigId);
        if (!rig.active) revert RigInactive(rigId);
        uint64[] storage list = jobs[rig.jobId].rigs;
        uint64 last = list[list.length - 1];
        list[rig.slot] = last;
        rigs[last].slot = rig.slot;
        list.pop();
        rig.active = false;
        emit RigDeactivated(rigId);
    }

    /// @notice Moves unlocked stake to the owner's credits. An active rig must keep at least the
    /// job's slash so that it can still be drawn.
    function withdrawStake(uint64 rigId, uint96 amount) external {
        Rig storage rig = _rig(rigId);
        if (msg.sender != rig.owner) revert NotRigOwner(rigId);
        uint96 free = rig.stake - rig.locked;
        if (amount > free) revert StakeTooLow(free, amount);
        uint96 left = rig.stake - amount;
        uint96 needed = jobs[rig.jobId].slash;
        if (rig.active && left < needed) revert StakeTooLow(left, needed);
        rig.stake = left;
        _credit(rig.owner, 0, amount, CREDIT_STAKE);
        emit StakeChanged(rigId, left);
    }

    /// @notice Pays out everything credited to the caller.
    function withdraw() external {
        uint256 amount = credits[msg.sender];
        if (amount == 0) revert NothingToWithdraw();
        credits[msg.sender] = 0;
        emit Withdrawn(msg.sender, amount);
        (bool ok,) = msg.sender.call{value: amount}("");
        if (!ok) revert TransferFailed();
    }

    /// @notice Records an operator's signed consent that `fee.payee` takes `fee.bps` of its rig
    /// earnings from now on. Anyone (usually the relayer) may submit it; each nonce works once.
    /// A new consent replaces the old one; bps 0 ends the arrangement.
    function setOperatorFee(OperatorFee calldata fee, bytes calldata signature) external {
        if (fee.bps > BPS) revert BadBps(fee.bps);
        if (usedNonces[fee.operator][fee.nonce]) revert NonceUsed(fee.nonce);
        address signer = _recover(operatorFeeDigest(fee), signature);
        if (signer == address(0) || signer != fee.operator) revert BadSignature();
        usedNonces[fee.operator][fee.nonce] = true;
        operatorFees[fee.operator] = fee;
        emit OperatorFeeSet(fee.operator, fee.payee, fee.bps, fee.nonce);
    }

    // ------------------------------------------------------------------------------------------
    // Order, draw, refund.

    /// @notice Orders one task. The value is exactly the job's price. Task ids start at 1.
    /// @dev inputHash is not checked against inputURI here: the seed makes that the rig's duty.
    function order(uint32 jobId, bytes32 inputHash, string calldata inputURI)
        external
        payable
        returns (uint256 taskId)
    {
        Job storage job = _orderable(jobId, 1);
        taskId = _order(jobId, job.price, inputHash, inputURI);
    }

    /// @notice Orders one task per input; the value is the job's price times their number.
    function orderMany(uint32 jobId, bytes32[] calldata inputHashes, string[] calldata inputURIs)
        external
        payable
        returns (uint256 firstTaskId)
    {
        if (inputHashes.length != inputURIs.length) revert LengthMismatch();
        if (inputHashes.length == 0) revert EmptyOrder();
        Job storage job = _orderable(jobId, inputHashes.length);
        firstTaskId = taskCount + 1;
        for (uint256 i = 0; i < inputHashes.length; i++) {
            _order(jobId, job.price, inputHashes[i], inputURIs[i]);
        }
    }

    /// @notice Draws the task's rigs. Anyone may call it once the chain is past the order block.
    /// An order block out of blockhash's reach is moved to the current block instead (Reanchored),
    /// and the draw has to be called again. Fewer eligible rigs than the quorum refunds the task.
    function draw(uint256 taskId) external {
        Task storage t = tasks[taskId];
        if (t.status != Status.Ordered) revert WrongPhase(_phase(t));
        uint256 number = _blockNumber();
        if (number <= t.orderBlock) revert TooEarly();
        if (number - t.orderBlock > BLOCKHASH_REACH) {
            t.orderBlock = uint64(number);
            emit Reanchored(taskId, uint64(number));
            return;
        }
        Job storage job = jobs[t.jobId];
        uint64[] memory chosen = _pick(job, keccak256(abi.encode(_blockHash(t.orderBlock), taskId)));
        if (chosen.length < job.quorum) {
            _refund(taskId, t);
            return;
        }
        for (uint256 i = 0; i < chosen.length; i++) {
            rigs[chosen[i]].locked += job.slash;
        }
        t.rigIds = chosen;
        t.commitments = new bytes32[](chosen.length);
        t.answers = new bytes32[](chosen.length);
        t.status = Status.Drawn;
        t.commitDeadline = uint64(block.timestamp) + commitWindow;
        t.revealDeadline = t.commitDeadline + revealWindow;
        emit TaskDrawn(taskId, t.jobId, chosen, t.commitDeadline, t.revealDeadline);
    }

    /// @notice Refunds a task nobody drew within an hour of its order. Anyone may call it.
    function refund(uint256 taskId) external {
        Task storage t = tasks[taskId];
        if (t.status != Status.Ordered) revert WrongPhase(_phase(t));
        if (block.timestamp < uint256(t.orderedAt) + REFUND_AFTER) revert TooEarly();
        _refund(taskId, t);
    }

    // ------------------------------------------------------------------------------------------
    // Commit and reveal.

    /// @notice commitment = keccak256(abi.encode(uint256 taskId, uint64 rigId, bytes32 answer, bytes32 salt)),
    /// sent by the operator of a drawn rig during the commit window.
    function commit(uint256 taskId, bytes32 commitment) external {
        _orRevert(taskId, _commit(taskId, msg.sender, commitment));
    }

    /// @notice Reveals the answer behind the caller's commitment during the reveal window.
    function reveal(uint256 taskId, bytes32 answer, bytes32 salt) external {
        _orRevert(taskId, _reveal(taskId, msg.sender, answer, salt));
    }

    /// @notice Applies relayed commits, each signed (EIP-712) by the operator of a drawn rig.
    /// Entries that do not apply are skipped with a Skipped event, never reverted.
    function commitMany(Commit[] calldata entries, bytes[] calldata signatures) external returns (uint256 applied) {
        if (entries.length != signatures.length) revert LengthMismatch();
        for (uint256 i = 0; i < entries.length; i++) {
            Commit calldata e = entries[i];
            address signer = _recover(commitDigest(e.taskId, e.commitment), signatures[i]);
            uint8 reason = signer == address(0) ? SKIP_BAD_SIGNATURE : _commit(e.taskId, signer, e.commitment);
            if (reason == 0) applied++;
            else emit Skipped(e.taskId, i, reason);
        }
    }

    /// @notice Applies relayed reveals, each signed (EIP-712) by the operator of a drawn rig.
    /// Entries that do not apply are skipped with a Skipped event, never reverted.
    function revealMany(Reveal[] calldata entries, bytes[] calldata signatures) external returns (uint256 applied) {
        if (entries.length != signatures.length) revert LengthMismatch();
        for (uint256 i = 0; i < entries.length; i++) {
            Reveal calldata e = entries[i];
            address signer = _recover(revealDigest(e.taskId, e.answer, e.salt), signatures[i]);
            uint8 reason = signer == address(0) ? SKIP_BAD_SIGNATURE : _reveal(e.taskId, signer, e.answer, e.salt);
            if (reason == 0) applied++;
            else emit Skipped(e.taskId, i, reason);
        }
    }

    // ------------------------------------------------------------------------------------------
    // Settlement.

    /// @notice Settles a task once its reveal window closed, or as soon as every drawn rig revealed.
    /// Releases the locks; slashes rigs that missed a window and, when the task agreed, rigs
    /// outside the agreement; pays the agreeing rigs and the builder; stores the answer.
    function settle(uint256 taskId) external {
        Task storage t = tasks[taskId];
        uint8 phase = _phase(t);
        if (phase != PHASE_SETTLE) revert WrongPhase(phase);
        Job storage job = jobs[t.jobId];
        uint256 n = t.rigIds.length;

        // The revealed answers in draw order, and which slot each came from.
        uint256 count = _popcount(t.revealed);
        bytes32[] memory revealed = new bytes32[](count);
        uint256 k = 0;
        for (uint256 i = 0; i < n; i++) {
            if (t.revealed & (1 << i) != 0) revealed[k++] = t.answers[i];
        }
        (bytes32 answer, bool agreed, uint8 agree, uint8 verdicts) =
            _agreement(job.kind, uint8(n), job.toleranceBps, revealed);

        t.status = Status.Settled;
        t.agreed = agreed;
        t.answer = answer;
        t.agree = agree;
        t.reveals = uint8(count);

        // inAgreement: bit i set when rigIds[i] is paid (agreed task, answer inside the agreement).
        (uint256 slashed, uint8 inAgreement) = _slash(taskId, t, job, verdicts, agreed);
        if (agreed) {
            _pay(taskId, t, job, slashed, inAgreement, agree);
        } else {
            // Nothing agreed: the orderer gets the price back; slashes go to the treasury so that
            // an orderer gains nothing from an input the rigs could not answer.
            _credit(t.orderer, taskId, t.paid, CREDIT_ORDERER);
            if (slashed > 0) _credit(treasury, taskId, slashed, CREDIT_TREASURY);
        }
        emit Settled(taskId, agreed, answer, agree, uint8(count));
    }

    // ------------------------------------------------------------------------------------------
    // Views.

    /// @notice Reads a task's outcome. status is phaseOf(taskId); agreed, answer and agree are
    /// zero until the task settled; reveals counts the answers revealed so far.
    function answerOf(uint256 taskId)
        external
        view
        returns (uint8 status, bool agreed, bytes32 answer, uint8 agree, uint8 reveals)
    {
        Task storage t = tasks[taskId];
        return (_phase(t), t.agreed, t.answer, t.agree, uint8(_popcount(t.revealed)));
    }

    /// @notice 1 draw, 2 commit, 3 reveal, 4 settle, 5 settled, 6 refunded; 0 for no such task.
    function phaseOf(uint256 taskId) external view returns (uint8) {
        return _phase(tasks[taskId]);
    }

    function jobOf(uint32 jobId) external view returns (JobInfo memory) {
        Job storage job = _job(jobId);
        return JobInfo({
            builder: job.builder,
            kind: job.kind,
            quorum: job.quorum,
            price: job.price,
            slash: job.slash,
            toleranceBps: job.toleranceBps,
            specURI: job.specURI,
            activeRigs: job.rigs.length
        });
    }

    /// @notice The job's active rigs, in the order the draw scans them.
    function jobRigs(uint32 jobId) external view returns (uint64[] memory) {
        return _job(jobId).rigs;
    }

    function rigOf(uint64 rigId) external view returns (RigInfo memory) {
        Rig storage rig = _rig(rigId);
        return RigInfo({
            operator: rig.operator,
            owner: rig.owner,
            jobId: rig.jobId,
            active: rig.active,
            stake: rig.stake,
            locked: rig.locked
        });
    }

    /// @notice Everything about a task; an unknown task has phase 0 and zero fields.
    function taskOf(uint256 taskId) external view returns (TaskInfo memory info) {
        Task storage t = tasks[taskId];
        info.jobId = t.jobId;
        info.phase = _phase(t);
        info.orderer = t.orderer;
        info.paid = t.paid;
        info.inputHash = t.inputHash;
        info.orderBlock = t.orderBlock;
        info.orderedAt = t.orderedAt;
        info.commitDeadline = t.commitDeadline;
        info.revealDeadline = t.revealDeadline;
        info.rigIds = t.rigIds;
        info.committedMask = t.committed;
        info.revealedMask = t.revealed;
        info.commitments = t.commitments;
        info.answers = t.answers;
        info.agreed = t.agreed;
        info.answer = t.answer;
        info.agree = t.agree;
    }

    /// @notice The seed's commitment: keccak256(abi.encode(taskId, rigId, answer, salt)).
    function commitmentHash(uint256 taskId, uint64 rigId, bytes32 answer, bytes32 salt)
        public
        pure
        returns (bytes32)
    {
        return keccak256(abi.encode(taskId, rigId, answer, salt));
    }

    /// @notice The agreement settle applies, exposed so that clients and tests can check it.
    /// @param quorum the number of rigs drawn (not of those who revealed).
    /// @return answer NUMERIC: the lower median whenever anything was revealed; EXACT: the unique
    /// most frequent answer, or zero on a tie or no reveals.
    /// @return agreed agree >= 2 and more than half of the quorum.
    /// @return agree how many answers are inside the agreement.
    /// @return verdicts bit i set when answers[i] is inside the agreement.
    function agreement(uint8 kind, uint8 quorum, uint32 toleranceBps, bytes32[] memory answers)
        public
        pure
        returns (bytes32 answer, bool agreed, uint8 agree, uint8 verdicts)
    {
        _checkRule(kind, quorum, toleranceBps);
        return _agreement(kind, quorum, toleranceBps, answers);
    }

    /// @notice The EIP-712 domain separator, for this chain and this contract.
    function domainSeparator() public view returns (bytes32) {
        return keccak256(abi.encode(DOMAIN_TYPEHASH, NAME_HASH, VERSION_HASH, block.chainid, address(this)));
    }

    function commitDigest(uint256 taskId, bytes32 commitment) public view returns (bytes32) {
        return _digest(keccak256(abi.encode(COMMIT_TYPEHASH, taskId, commitment)));
    }

    function revealDigest(uint256 taskId, bytes32 answer, bytes32 salt) public view returns (bytes32) {
        return _digest(keccak256(abi.encode(REVEAL_TYPEHASH, taskId, answer, salt)));
    }

    function operatorFeeDigest(OperatorFee calldata fee) public view returns (bytes32) {
        return _digest(keccak256(abi.encode(OPERATOR_FEE_TYPEHASH, fee.operator, fee.bps, fee.payee, fee.nonce)));
    }

    // ------------------------------------------------------------------------------------------
    // Internals.

    function _checkRule(uint8 kind, uint8 quorum, uint32 toleranceBps) private pure {
        if (quorum < MIN_QUORUM || quorum > MAX_QUORUM) revert BadQuorum(quorum);
        if (kind == KIND_NUMERIC) {
            if (toleranceBps < 1 || toleranceBps > MAX_TOLERANCE_BPS) revert BadTolerance(toleranceBps);
        } else if (kind == KIND_EXACT) {
            if (toleranceBps != 0) revert BadTolerance(toleranceBps);
        } else {
            revert BadKind(kind);
        }
    }

    /// @dev The number the order block and the draw count in: block.number, which on Robinhood
    /// Chain is the L1 block number. The only reader of block.number.
    function _blockNumber() internal view virtual returns (uint256) {
        return block.number;
    }

    /// @dev The hash of a block numbered as _blockNumber counts (0 outside blockhash's reach). The
    /// only reader of blockhash.
    function _blockHash(uint256 number) internal view virtual returns (bytes32) {
        return blockhash(number);
    }

    function _job(uint32 jobId) private view returns (Job storage job) {
        job = jobs[jobId];
        if (job.quorum == 0) revert UnknownJob(jobId);
    }

    function _rig(uint64 rigId) private view returns (Rig storage rig) {
        rig = rigs[rigId];
        if (rig.operator == address(0)) revert UnknownRig(rigId);
    }

    /// Checks an order of `count` tasks: a known job, the exact value, and enough active rigs
    /// that somebody can answer (so nobody pays for a task nobody can answer).
    function _orderable(uint32 jobId, uint256 count) private view returns (Job storage job) {
        job = _job(jobId);
        uint256 expected = uint256(job.price) * count;
        if (msg.value != expected) revert WrongValue(msg.value, expected);
        if (job.rigs.length < job.quorum) revert NotEnoughRigs(job.rigs.length, job.quorum);
    }

    function _order(uint32 jobId, uint96 price, bytes32 inputHash, string calldata inputURI)
        private
        returns (uint256 taskId)
    {
        taskId = ++taskCount;
        Task storage t = tasks[taskId];
        t.jobId = jobId;
        t.status = Status.Ordered;
        t.orderBlock = uint64(_blockNumber());
        t.orderedAt = uint64(block.timestamp);
        t.orderer = msg.sender;
        t.paid = price;
        t.inputHash = inputHash;
        emit TaskOrdered(taskId, jobId, msg.sender, inputHash, inputURI);
    }

    /// From a random start in the job's rig list, takes the first eligible rigs (stake left to
    /// lock one more slash) whose operators differ, looking at no more than MAX_SCAN rigs.
    /// Returns fewer than the quorum when that many could not be found.
    function _pick(Job storage job, bytes32 seed) private view returns (uint64[] memory chosen) {
        uint256 n = job.rigs.length;
        uint256 quorum = job.quorum;
        chosen = new uint64[](quorum);
        address[] memory operators = new address[](quorum);
        uint256 found = 0;
        if (n > 0) {
            uint256 start = uint256(seed) % n;
            uint256 scan = n < MAX_SCAN ? n : MAX_SCAN;
            for (uint256 i = 0; i < scan && found < quorum; i++) {
                uint64 rigId = job.rigs[(start + i) % n];
                Rig storage rig = rigs[rigId];
                if (rig.stake - rig.locked < job.slash) continue;
                bool taken = false;
                for (uint256 j = 0; j < found; j++) {
                    if (operators[j] == rig.operator) {
                        taken = true;
                        break;
                    }
                }
                if (taken) continue;
                chosen[found] = rigId;
                operators[found] = rig.operator;
                found++;
            }
        }
        // Trim to what was found.
        assembly ("memory-safe") {
            mstore(chosen, found)
        }
    }

    function _refund(uint256 taskId, Task storage t) private {
        t.status = Status.Refunded;
        _credit(t.orderer, taskId, t.paid, CREDIT_ORDERER);
        emit Refunded(taskId, t.orderer, t.paid);
    }

    function _phase(Task storage t) private view returns (uint8) {
        Status s = t.status;
        if (s == Status.None) return PHASE_NONE;
        if (s == Status.Ordered) return PHASE_DRAW;
        if (s == Status.Settled) return PHASE_SETTLED;
        if (s == Status.Refunded) return PHASE_REFUNDED;
        uint8 all = uint8((1 << t.rigIds.length) - 1);
        if (t.revealed == all) return PHASE_SETTLE;
        // The reveal window opens when the commit window closes, or once every rig committed
        // (commit then moved revealDeadline to a full window from that moment).
        if (t.committed != all && block.timestamp < t.commitDeadline) return PHASE_COMMIT;
        if (block.timestamp < t.revealDeadline) return PHASE_REVEAL;
        return PHASE_SETTLE;
    }

    /// The slot of the operator's rig in the task (operators are distinct within a task).
    function _slotOf(Task storage t, address operator) private view returns (bool, uint256) {
        uint256 n = t.rigIds.length;
        for (uint256 i = 0; i < n; i++) {
            if (rigs[t.rigIds[i]].operator == operator) return (true, i);
        }
        return (false, 0);
    }

    /// Applies a commit from `operator`, or says why it does not apply (0: applied).
    function _commit(uint256 taskId, address operator, bytes32 commitment) private returns (uint8) {
        Task storage t = tasks[taskId];
        if (_phase(t) != PHASE_COMMIT) return SKIP_WRONG_PHASE;
        (bool found, uint256 i) = _slotOf(t, operator);
        if (!found) return SKIP_NOT_DRAWN;
        if (t.committed & (1 << i) != 0) return SKIP_ALREADY_DONE;
        t.committed |= uint8(1 << i);
        t.commitments[i] = commitment;
        emit Committed(taskId, t.rigIds[i], commitment);
        if (t.committed == uint8((1 << t.rigIds.length) - 1)) {
            uint64 deadline = uint64(block.timestamp) + revealWindow;
            t.revealDeadline = deadline;
            emit RevealOpened(taskId, deadline);
        }
        return 0;
    }

    /// Applies a reveal from `operator`, or says why it does not apply (0: applied).
    function _reveal(uint256 taskId, address operator, bytes32 answer, bytes32 salt) private returns (uint8) {
        Task storage t = tasks[taskId];
        if (_phase(t) != PHASE_REVEAL) return SKIP_WRONG_PHASE;
        (bool found, uint256 i) = _slotOf(t, operator);
        if (!found) return SKIP_NOT_DRAWN;
        uint8 bit = uint8(1 << i);
        if (t.committed & bit == 0) return SKIP_NOT_COMMITTED;
        if (t.revealed & bit != 0) return SKIP_ALREADY_DONE;
        if (commitmentHash(taskId, t.rigIds[i], answer, salt) != t.commitments[i]) return SKIP_MISMATCH;
        t.revealed |= bit;
        t.answers[i] = answer;
        emit Revealed(taskId, t.rigIds[i], answer);
        return 0;
    }

    /// Turns a skip reason into the revert a direct call gets.
    function _orRevert(uint256 taskId, uint8 reason) private view {
        if (reason == 0) return;
        if (reason == SKIP_WRONG_PHASE) revert WrongPhase(_phase(tasks[taskId]));
        if (reason == SKIP_NOT_DRAWN) revert NotDrawn();
        if (reason == SKIP_ALREADY_DONE) revert AlreadyDone();
        if (reason == SKIP_NOT_COMMITTED) revert NotCommitted();
        revert CommitmentMismatch();
    }

    /// Releases every drawn rig's lock and takes the slash from rigs that missed a window or, in
    /// an agreed task, answered outside the agreement. Returns the total slashed and the mask of
    /// slots inside the agreement.
    function _slash(uint256 taskId, Task storage t, Job storage job, uint8 verdicts, bool agreed)
        private
        returns (uint256 slashed, uint8 inAgreement)
    {
        uint96 slash = job.slash;
        uint256 k = 0; // index among the revealed answers, which verdicts is over
        for (uint256 i = 0; i < t.rigIds.length; i++) {
            uint8 bit = uint8(1 << i);
            Rig storage rig = rigs[t.rigIds[i]];
            rig.locked -= slash;
            uint8 reason = 0;
            if (t.revealed & bit == 0) {
                reason = t.committed & bit == 0 ? SLASH_MISSED_COMMIT : SLASH_MISSED_REVEAL;
            } else {
                bool inside = verdicts & (1 << k) != 0;
                k++;
                if (!agreed) continue;
                if (inside) {
                    inAgreement |= bit;
                    continue;
                }
                reason = SLASH_OUTSIDE_AGREEMENT;
            }
            if (slash > 0) {
                rig.stake -= slash;
                slashed += slash;
            }
            emit Slashed(taskId, t.rigIds[i], slash, reason);
        }
    }

    /// Pays an agreed task: BUILDER_BPS of the price to the builder, the rest in equal shares to
    /// the agreeing rigs' operators (less their relayer's fee); the slashes in equal shares to
    /// the agreeing rigs' owners (the stakers). Division dust goes to the builder and treasury.
    function _pay(uint256 taskId, Task storage t, Job storage job, uint256 slashed, uint8 inAgreement, uint8 agree)
        private
    {
        uint256 builderCut = uint256(t.paid) * BUILDER_BPS / BPS;
        uint256 share = (t.paid - builderCut) / agree;
        uint256 slashShare = slashed / agree;
        for (uint256 i = 0; i < t.rigIds.length; i++) {
            if (inAgreement & (1 << i) == 0) continue;
            Rig storage rig = rigs[t.rigIds[i]];
            _payOperator(taskId, rig.operator, share);
            if (slashShare > 0) _credit(rig.owner, taskId, slashShare, CREDIT_STAKER);
        }
        _credit(job.builder, taskId, t.paid - share * agree, CREDIT_BUILDER);
        uint256 dust = slashed - slashShare * agree;
        if (dust > 0) _credit(treasury, taskId, dust, CREDIT_TREASURY);
    }

    function _payOperator(uint256 taskId, address operator, uint256 amount) private {
        OperatorFee storage fee = operatorFees[operator];
        uint256 cut = amount * fee.bps / BPS;
        if (cut > 0) _credit(fee.payee, taskId, cut, CREDIT_OPERATOR_FEE);
        _credit(operator, taskId, amount - cut, CREDIT_RIG_REWARD);
    }

    function _credit(address account, uint256 taskId, uint256 amount, uint8 reason) private {
        credits[account] += amount;
        emit Credited(account, taskId, amount, reason);
    }

    function _agreement(uint8 kind, uint8 quorum, uint32 toleranceBps, bytes32[] memory answers)
        private
        pure
        returns (bytes32 answer, bool agreed, uint8 agree, uint8 verdicts)
    {
        if (answers.length > quorum) revert BadAnswers(answers.length, quorum);
        if (answers.length == 0) return (bytes32(0), false, 0, 0);
        if (kind == KIND_NUMERIC) {
            (answer, agree, verdicts) = _agreeNumeric(toleranceBps, answers);
        } else {
            (answer, agree, verdicts) = _agreeExact(answers);
        }
        agreed = agree >= 2 && 2 * uint256(agree) > quorum;
    }

    /// NUMERIC: the lower median of the values; an answer agrees when
    /// |v − m| × 10000 ≤ m × toleranceBps. The median is stored whether or not the task agreed.
    function _agreeNumeric(uint32 toleranceBps, bytes32[] memory answers)
        private
        pure
        returns (bytes32, uint8 agree, uint8 verdicts)
    {
        uint256 n = answers.length;
        uint256[] memory sorted = new uint256[](n);
        for (uint256 i = 0; i < n; i++) {
            // Insertion sort: at most five values.
            uint256 v = uint256(answers[i]);
            uint256 j = i;
            while (j > 0 && sorted[j - 1] > v) {
                sorted[j] = sorted[j - 1];
                j--;
            }
            sorted[j] = v;
        }
        uint256 m = sorted[(n - 1) / 2];
        for (uint256 i = 0; i < n; i++) {
            if (_within(uint256(answers[i]), m, toleranceBps)) {
                agree++;
                verdicts |= uint8(1 << i);
            }
        }
        return (bytes32(m), agree, verdicts);
    }

    /// |v − m| × 10000 ≤ m × tol, compared as exact 512-bit products so that no value near 2^256
    /// can overflow into a wrong verdict.
    function _within(uint256 v, uint256 m, uint32 toleranceBps) private pure returns (bool) {
        uint256 diff = v > m ? v - m : m - v;
        (uint256 hiL, uint256 loL) = _mul512(diff, BPS);
        (uint256 hiR, uint256 loR) = _mul512(m, toleranceBps);
        return hiL < hiR || (hiL == hiR && loL <= loR);
    }

    /// The full 512-bit product of a and b as (high, low) words: mul gives the product mod 2^256,
    /// mulmod by 2^256 − 1 gives it mod 2^256 − 1, and the Chinese remainder theorem the rest.
    function _mul512(uint256 a, uint256 b) private pure returns (uint256 hi, uint256 lo) {
        assembly ("memory-safe") {
            let mm := mulmod(a, b, not(0))
            lo := mul(a, b)
            hi := sub(sub(mm, lo), lt(mm, lo))
        }
    }

    /// EXACT: the most frequent answer, when no other answer is as frequent; otherwise zero and
    /// nobody agrees.
    function _agreeExact(bytes32[] memory answers) private pure returns (bytes32, uint8, uint8) {
        uint256 n = answers.length;
        bytes32 top;
        uint256 topCount = 0;
        bool tied = false;
        for (uint256 i = 0; i < n; i++) {
            uint256 c = 0;
            for (uint256 j = 0; j < n; j++) {
                if (answers[j] == answers[i]) c++;
            }
            if (c > topCount) {
                (top, topCount, tied) = (answers[i], c, false);
            } else if (c == topCount && answers[i] != top) {
                tied = true;
            }
        }
        if (tied) return (bytes32(0), 0, 0);
        uint8 verdicts = 0;
        for (uint256 i = 0; i < n; i++) {
            if (answers[i] == top) verdicts |= uint8(1 << i);
        }
        return (top, uint8(topCount), verdicts);
    }

    function _popcount(uint8 x) private pure returns (uint256 c) {
        for (; x != 0; x &= x - 1) c++;
    }

    function _digest(bytes32 structHash) private view returns (bytes32) {
        return keccak256(abi.encodePacked("\x19\x01", domainSeparator(), structHash));
    }

    /// The signer of a 65-byte (r, s, v) signature, or zero when it is malformed, malleable or
    /// does not recover. v may be 27/28 or 0/1.
    function _recover(bytes32 digest, bytes calldata sig) private pure returns (address) {
        if (sig.length != 65) return address(0);
        bytes32 r = bytes32(sig[0:32]);
        bytes32 s = bytes32(sig[32:64]);
        uint8 v = uint8(sig[64]);
        if (v < 27) v += 27;
        if (v != 27 && v != 28) return address(0);
        if (uint256(s) > HALF_N) return address(0);
        return ecrecover(digest, v, r, s);
    }
}
