// npuvp_gemm_array: the RTL GEMM engine of npuvp's co-simulation (docs/rtl.md).
//
// An output-stationary systolic array of ROWS x COLS processing elements
// (PEs). Each PE multiplies an int8 A value by an int8 B value every cycle and
// adds the product to its own int32 accumulator, which stays in place while A
// values flow left to right along the rows and B values top to bottom along
// the columns.
//
// One command computes C = A * B for an m x k A, a k x n B and an m x n C,
// in blocks of ROWS x COLS outputs, blocks in row-major order. For each block
// the producer sends k beats, on the A and B streams together:
//   A beat kk, lane r:  A[row_base + r][kk]      (ROWS int8 lanes)
//   B beat kk, lane c:  B[kk][col_base + c]      (COLS int8 lanes)
// and the array sends the block's result rows on the C stream, r = 0, 1, ...:
//   C beat, lane c:     C[row_base + r][col_base + c]   (COLS int32 lanes)
// Lanes past m (A) or n (B) are ignored; C lanes past n are zero; rows past m
// are not sent, so a block sends min(ROWS, m - row_base) rows.
//
// Handshakes (valid/ready, all on the rising edge of clk):
//   cmd: cmd_valid / cmd_ready with cmd_m, cmd_k, cmd_n (ready when idle);
//   A, B: a beat moves when a_valid && a_ready; A and B move together, so
//         a_ready = the array takes a beat && b_valid, and b_ready likewise;
//   C:   a row moves when c_valid && c_ready; while c_valid && !c_ready the
//        whole array holds still (a_ready and b_ready fall with it);
//   done: high for one cycle after the edge that moved the command's last C
//        row; a command with m, k or n = 0 moves no data and is done at once.
// rst_n is synchronous and active low.
//
// Accumulation: each PE adds a*b (int8 x int8) to an int32 accumulator that
// saturates at each step (-2^31 .. 2^31 - 1) instead of wrapping.
//
// Timing (no back-pressure on C, A and B always valid): the command is taken
// on edge 1, the first beat on edge 2. Beat kk of a block reaches PE (r, c) on
// the edge after r + c more; a result row r leaves r + COLS edges after the
// block's last beat. A block whose rows outnumber k would overtake the last
// rows of the one before at the C port, so the next block waits
// max(0, rows - k) cycles (a bubble). In all, for B = ceil(m/ROWS) *
// ceil(n/COLS) blocks,
//   cycles = sum over the first B-1 blocks of max(k, rows_b) + k + rows_last + COLS,
// counted from the edge that takes the command to the edge that moves the last
// C row (= B*k + ROWS + COLS when k >= ROWS and ROWS divides m).
//
// Zero skipping (cmd_zskip, sampled with the command; docs/rtl.md "Zero
// skipping"): the array remembers whether every A value of a row block's
// first block (column block 0: all k beats, rows inside m) was zero. If so,
// the row block's other blocks need no operands: their product is zero. For
// each such block the array raises ab_skip for one cycle instead of taking
// its k beats (a_ready and b_ready stay low); on the edge where ab_skip is
// high the producer drops that block's k A and B beats and goes on with the
// next block. Inside, the skipped block runs as a one-beat block of zeros,
// so its zero result rows leave through the same path. Blocks of different
// k follow one another, so the bubble after block b is max(0, rows_b -
// k_next) (the next block's k: 1 if it is skipped), and
//   cycles = k_first + sum over consecutive blocks (b, b+1) of max(k_b+1, rows_b)
//            + rows_last + COLS,
// k_b = 1 for a skipped block, k otherwise (with every k_b = k this is the
// formula above). Which blocks are skipped depends on the values of A,
// which the C++ timing model never sees.
module npuvp_gemm_array #(
    parameter int ROWS  = 8,   // PE rows: A lanes, result rows per block
    parameter int COLS  = 8,   // PE columns: B and C lanes
    parameter int DIM_W = 16   // width of m, k, n
) (
    input  logic               clk,
    input  logic               rst_n,
    // Command
    input  logic               cmd_valid,
    output logic               cmd_ready,
    input  logic [DIM_W-1:0]   cmd_m,
    input  logic [DIM_W-1:0]   cmd_k,
    input  logic [DIM_W-1:0]   cmd_n,
    input  logic               cmd_zskip,  // skip blocks of all-zero A row blocks
    // A operand stream: one column of an A block per beat
    input  logic               a_valid,
    output logic               a_ready,
    input  logic [ROWS*8-1:0]  a_data,
    // B operand stream: one row of a B block per beat
    input  logic               b_valid,
    output logic               b_ready,
    input  logic [COLS*8-1:0]  b_data,
    // The producer drops the current block's A and B beats (zero skipping)
    output logic               ab_skip,
    // C result stream: one row of a C block per beat
    output logic               c_valid,
    input  logic               c_ready,
    output logic [COLS*32-1:0] c_data,
    output logic               done
);
    // Counters are one bit wider than the dimensions, so that base + ROWS and
    // base + COLS never wrap.
    localparam int W = DIM_W + 1;
    localparam logic [W-1:0] ROWS_W = W'(ROWS);
    localparam logic [W-1:0] COLS_W = W'(COLS);

    // What travels with an A value along a row of PEs.
    typedef struct packed {
        logic       valid;   // a beat, not a bubble
        logic       first;   // first beat of its block: the accumulator restarts
        logic       last;    // last beat of its block: the result leaves
        logic       emit;    // the row lies inside m: its result is sent
        logic       final_;  // the command's last result row
        logic [7:0] a;
    } a_beat_t;

    // ------------------------------------------------------------ command

    logic           busy;      // a command is running
    logic           feeding;   // blocks are left to take beats for
    logic [W-1:0]   m_r, k_r, n_r;
    logic [W-1:0]   row_base;  // first row of the block being fed
    logic [W-1:0]   col_base;  // first column of the block being fed
    logic [W-1:0]   kk;        // beat within the block
    logic [W-1:0]   hold;      // bubble cycles before the next block may start

    logic           advance;   // the array moves this cycle (no C back-pressure)
    logic           take;      // the array takes a beat if both are valid
    logic           fire;      // an A and a B beat move on this edge
    logic           c_final;   // the C row on the port is the command's last
    logic           zskip_r;   // zero skipping is on for this command
    logic           panel_nz;  // a nonzero A value so far in column block 0 of this row block
    logic           panel_zero;  // this row block's A is all zero: skip its other blocks
    logic           a_nz;      // the A beat on the port has a nonzero value inside m
    logic           skipping;  // the block being fed is skipped
    logic           step;      // a beat moves, or a skipped block's one virtual beat
    logic           blk_last;  // ... and it is its block's last
    logic           zero_now;  // this row block's A is all zero, this beat included
    logic           next_skip; // the block after this one will be skipped
    logic [W-1:0]   k_next;    // its beats: 1 if skipped, else k

    wire            cmd_fire       = cmd_valid && cmd_ready;
    wire            last_beat      = (kk == k_r - W'(1));
    wire            last_block_col = (col_base + COLS_W >= n_r);
    wire            last_block_row = (row_base + ROWS_W >= m_r);
    wire  [W-1:0]   rows_in_block  = last_block_row ? m_r - row_base : ROWS_W;

    assign cmd_ready = !busy;
    assign advance   = !(c_valid && !c_ready);
    assign take      = feeding && (hold == '0) && advance;
    assign skipping  = zskip_r && panel_zero && (col_base != '0);
    assign a_ready   = take && !skipping && b_valid;
    assign b_ready   = take && !skipping && a_valid;
    assign fire      = take && !skipping && a_valid && b_valid;
    assign ab_skip   = take && skipping;
    assign step      = fire || ab_skip;
    assign blk_last  = ab_skip || last_beat;
    assign zero_now  = (col_base == '0) ? !(((kk == '0) ? 1'b0 : panel_nz) || a_nz) : panel_zero;
    assign next_skip = zskip_r && !last_block_col && zero_now;
    assign k_next    = next_skip ? W'(1) : k_r;

    always_ff @(posedge clk) begin
        if (!rst_n) begin
            busy     <= 1'b0;
            feeding  <= 1'b0;
            done     <= 1'b0;
            m_r      <= '0;
            k_r      <= '0;
            n_r      <= '0;
            row_base <= '0;
            col_base <= '0;
            kk       <= '0;
            hold     <= '0;
            zskip_r    <= 1'b0;
            panel_nz   <= 1'b0;
            panel_zero <= 1'b0;
        end else begin
            done <= 1'b0;
            if (cmd_fire) begin
                m_r      <= W'(cmd_m);
                k_r      <= W'(cmd_k);
                n_r      <= W'(cmd_n);
                row_base <= '0;
                col_base <= '0;
                kk       <= '0;
                hold     <= '0;
                zskip_r    <= cmd_zskip;
                panel_nz   <= 1'b0;
                panel_zero <= 1'b0;
                if (cmd_m == '0 || cmd_k == '0 || cmd_n == '0) begin
                    done <= 1'b1;
                end else begin
                    busy    <= 1'b1;
                    feeding <= 1'b1;
                end
            end
            if (advance && hold != '0) hold <= hold - W'(1);
            if (fire && col_base == '0) begin
                // Column block 0 of a row block: is its A all zero?
                panel_nz <= ((kk == '0) ? 1'b0 : panel_nz) || a_nz;
                if (last_beat) panel_zero <= zero_now;
            end
            if (step) begin
                if (!blk_last) begin
                    kk <= kk + W'(1);
                end else begin
                    kk   <= '0;
                    // The next block's rows must not overtake this one's:
                    // its last beat comes at least rows_in_block edges later.
                    hold <= (rows_in_block > k_next) ? rows_in_block - k_next : '0;
                    if (!last_block_col) begin
                        col_base <= col_base + COLS_W;
                    end else begin
                        col_base <= '0;
                        if (last_block_row) feeding <= 1'b0;
                        else row_base <= row_base + ROWS_W;
                    end
                end
            end
            if (c_valid && c_ready && c_final) begin
                busy <= 1'b0;
                done <= 1'b1;
            end
        end
    end

    // ------------------------------------------------------------ input skew
    // Row r of A enters the array r cycles late and column c of B c cycles
    // late, so that beat kk meets at PE (r, c) on the same edge.

    a_beat_t    row_in [ROWS];  // what enters PE (r, 0)
    logic [7:0] col_in [COLS];  // what enters PE (0, c)
    logic [ROWS-1:0] lane_nz;   // A lane r is nonzero and inside m

    assign a_nz = |lane_nz;

    for (genvar r = 0; r < ROWS; r++) begin : g_row_skew
        wire     in_m   = (row_base + W'(r) < m_r);
        a_beat_t at_port;
        assign lane_nz[r]     = in_m && (a_data[r*8 +: 8] != 8'd0);
        assign at_port.valid  = step;
        assign at_port.first  = (kk == '0);
        assign at_port.last   = blk_last;
        assign at_port.emit   = in_m;
        assign at_port.final_ = blk_last && last_block_row && last_block_col
                                && (W'(r) == rows_in_block - W'(1));
        // A skipped block's one beat is zeros.
        assign at_port.a      = (in_m && !ab_skip) ? a_data[r*8 +: 8] : 8'd0;
        if (r == 0) begin : g_direct
            assign row_in[r] = at_port;
        end else begin : g_delay
            a_beat_t line [r];
            always_ff @(posedge clk) begin
                if (!rst_n) begin
                    for (int i = 0; i < r; i++) line[i] <= '0;
                end else if (advance) begin
                    line[0] <= at_port;
                    for (int i = 1; i < r; i++) line[i] <= line[i-1];
                end
            end
            assign row_in[r] = line[r-1];
        end
    end

    for (genvar c = 0; c < COLS; c++) begin : g_col_skew
        wire [7:0] at_port = (col_base + W'(c) < n_r && !ab_skip) ? b_data[c*8 +: 8] : 8'd0;
        if (c == 0) begin : g_direct
            assign col_in[c] = at_port;
        end else begin : g_delay
            logic [7:0] line [c];
            always_ff @(posedge clk) begin
                if (!rst_n) begin
                    for (int i = 0; i < c; i++) line[i] <= '0;
                end else if (advance) begin
                    line[0] <= at_port;
                    for (int i = 1; i < c; i++) line[i] <= line[i-1];
                end
            end
            assign col_in[c] = line[c-1];
        end
    end

    // ------------------------------------------------------------ PE array

    a_beat_t     a_out [ROWS][COLS];  // PE (r, c) passes its A beat right
    logic [7:0]  b_out [ROWS][COLS];  // and its B value down
    // Results after the output deskew: row r's lanes line up on one edge.
    logic [31:0] row_data  [ROWS][COLS];
    logic        row_valid [ROWS];
    logic        row_final [ROWS];

    for (genvar r = 0; r < ROWS; r++) begin : g_r
        for (genvar c = 0; c < COLS; c++) begin : g_c
            a_beat_t     in_a;
            logic [7:0]  in_b;
            logic [31:0] acc;
            logic [31:0] result;        // the block's C value, on the edge of its last beat
            logic        result_valid;  // (lane 0 only: the row's flags)
            logic        result_final;

            if (c == 0) begin : g_in_a_port
                assign in_a = row_in[r];
            end else begin : g_in_a_left
                assign in_a = a_out[r][c-1];
            end
            if (r == 0) begin : g_in_b_port
                assign in_b = col_in[c];
            end else begin : g_in_b_up
                assign in_b = b_out[r-1][c];
            end

            // acc + product in 33 bits; a sum outside int32 saturates
            // (docs/rtl.md "Accumulator"): each step clamps to
            // [-2^31, 2^31 - 1]. With DIM_W <= 17 no k reaches it
            // (131071 * 16384 < 2^31).
            wire signed [15:0] product = $signed(in_a.a) * $signed(in_b);
            wire [31:0]        acc_in  = in_a.first ? 32'd0 : acc;
            wire [32:0]        wide    = {acc_in[31], acc_in} + {{17{product[15]}}, product};
            wire [31:0]        sum     = (wide[32] == wide[31]) ? wide[31:0]
                                         : {wide[32], {31{~wide[32]}}};

            always_ff @(posedge clk) begin
                if (!rst_n) begin
                    a_out[r][c]  <= '0;
                    b_out[r][c]  <= '0;
                    acc          <= '0;
                    result       <= '0;
                    result_valid <= 1'b0;
                    result_final <= 1'b0;
                end else if (advance) begin
                    a_out[r][c]  <= in_a;
                    b_out[r][c]  <= in_b;
                    if (in_a.valid) acc <= sum;
                    result       <= sum;
                    result_valid <= in_a.valid && in_a.last && in_a.emit;
                    result_final <= in_a.valid && in_a.final_;
                end
            end

            // Output deskew: lane c's result is ready c edges before lane
            // COLS-1's, so it waits COLS-1-c more.
            localparam int DEPTH = COLS - 1 - c;
            if (DEPTH == 0) begin : g_no_deskew
                assign row_data[r][c] = result;
            end else begin : g_deskew
                logic [31:0] line [DEPTH];
                always_ff @(posedge clk) begin
                    if (!rst_n) begin
                        for (int i = 0; i < DEPTH; i++) line[i] <= '0;
                    end else if (advance) begin
                        line[0] <= result;
                        for (int i = 1; i < DEPTH; i++) line[i] <= line[i-1];
                    end
                end
                assign row_data[r][c] = line[DEPTH-1];
            end

            if (c == 0) begin : g_row_flags
                logic valid_line [COLS];
                logic final_line [COLS];
                assign valid_line[0] = result_valid;
                assign final_line[0] = result_final;
                for (genvar i = 1; i < COLS; i++) begin : g_flag_delay
                    always_ff @(posedge clk) begin
                        if (!rst_n) begin
                            valid_line[i] <= 1'b0;
                            final_line[i] <= 1'b0;
                        end else if (advance) begin
                            valid_line[i] <= valid_line[i-1];
                            final_line[i] <= final_line[i-1];
                        end
                    end
                end
                assign row_valid[r] = valid_line[COLS-1];
                assign row_final[r] = final_line[COLS-1];
            end else begin : g_lane_flags_unused
                wire unused = result_valid ^ result_final;
            end
        end
    end

    // ------------------------------------------------------------ C port
    // The bubbles between blocks make at most one row valid per cycle.

    always_comb begin
        c_valid = 1'b0;
        c_final = 1'b0;
        c_data  = '0;
        for (int r = 0; r < ROWS; r++) begin
            if (row_valid[r]) begin
                c_valid = 1'b1;
                c_final = row_final[r];
                for (int c = 0; c < COLS; c++) c_data[c*32 +: 32] = row_data[r][c];
            end
        end
    end

    // The last column passes its A beats and the last row its B values to
    // nobody (in a 1 x 1 array, nothing is passed at all).
    wire unused_edges = ^{a_out[ROWS-1][COLS-1], b_out[ROWS-1][COLS-1]};
endmodule
