// npuvp_math_unit: the RTL vector unit of npuvp's co-simulation (docs/rtl.md,
// "rtl.pe_math"), an element-wise pipeline for PE_MATH.
//
// LANES int32 lanes. One command applies one op to `len` elements:
//   OP_ADD  (0): z = sat32(x + y)   (add, bias_add: y carries the bias)
//   OP_MUL  (1): z = sat32(x * y)   (mul)
//   OP_RELU (2): z = max(x, 0)      (relu; no y beats)
//   OP_PASS (3): z = x              (cast: a copy; no y beats)
// sat32 clamps to [-2^31, 2^31 - 1]. Elements arrive in beats of LANES
// lanes, beat b lane l = element b*LANES + l (lane l in bits [32l +: 32]);
// the last beat's lanes past len are ignored and their z lanes are zero.
//
// Handshakes (valid/ready, all on the rising edge of clk):
//   cmd:  cmd_valid / cmd_ready with cmd_op, cmd_len (ready when idle);
//   x, y: a beat moves when x_valid && x_ready (and, for ADD and MUL,
//         y_valid && y_ready: x and y move together, so x_ready = the unit
//         takes a beat && y_valid, and y_ready likewise); RELU and PASS
//         take no y beats (y_ready stays low);
//   z:    a beat moves when z_valid && z_ready; while z_valid && !z_ready
//         the whole pipeline holds still (x_ready, y_ready fall with it);
//   done: high for one cycle after the edge that moved the last z beat; a
//         command with len = 0 moves no data and is done at once.
// rst_n is synchronous and active low.
//
// Timing (no back-pressure on z, x and y always valid): the command is taken
// on edge 1, beat b on edge 2 + b; its result is registered on that edge
// (stage 1), moved to the z register on the next (stage 2) and leaves on the
// one after. For B = ceil(len / LANES) beats:
//   cycles = B + 3 (len > 0), 1 (len = 0),
// from the edge that takes the command to the edge that moves the last z beat.
module npuvp_math_unit #(
    parameter int LANES = 16,  // int32 lanes per beat
    parameter int LEN_W = 32   // width of cmd_len
) (
    input  logic                clk,
    input  logic                rst_n,
    // Command
    input  logic                cmd_valid,
    output logic                cmd_ready,
    input  logic [1:0]          cmd_op,
    input  logic [LEN_W-1:0]    cmd_len,
    // x operand stream
    input  logic                x_valid,
    output logic                x_ready,
    input  logic [LANES*32-1:0] x_data,
    // y operand stream (ADD, MUL)
    input  logic                y_valid,
    output logic                y_ready,
    input  logic [LANES*32-1:0] y_data,
    // z result stream
    output logic                z_valid,
    input  logic                z_ready,
    output logic [LANES*32-1:0] z_data,
    output logic                done
);
    localparam logic [1:0] OP_ADD  = 2'd0;
    localparam logic [1:0] OP_MUL  = 2'd1;
    localparam logic [1:0] OP_RELU = 2'd2;
    localparam logic [1:0] OP_PASS = 2'd3;
    localparam logic [LEN_W:0] LANES_W = (LEN_W+1)'(LANES);

    // ------------------------------------------------------------ command

    logic            busy;     // a command is running
    logic            feeding;  // beats are left to take
    logic [1:0]      op_r;
    logic [LEN_W:0]  left;     // elements not yet taken (one bit wider: no wrap)

    wire cmd_fire  = cmd_valid && cmd_ready;
    wire needs_y   = (op_r == OP_ADD) || (op_r == OP_MUL);
    wire advance   = !(z_valid && !z_ready);
    wire take      = feeding && advance;
    wire fire      = take && x_valid && (!needs_y || y_valid);
    wire last_beat = (left <= LANES_W);

    assign cmd_ready = !busy;
    assign x_ready   = take && (!needs_y || y_valid);
    assign y_ready   = take && needs_y && x_valid;

    // ------------------------------------------------------------ lanes

    function automatic logic [31:0] sat32(input logic signed [63:0] v);
        if (v > 64'sd2147483647) return 32'h7fffffff;
        if (v < -64'sd2147483648) return 32'h80000000;
        return v[31:0];
    endfunction

    logic [LANES*32-1:0] result;  // this beat's op, lane by lane
    for (genvar l = 0; l < LANES; l++) begin : g_lane
        wire signed [31:0] x   = x_data[l*32 +: 32];
        wire signed [31:0] y   = y_data[l*32 +: 32];
        wire               in_len = (LEN_W+1)'(l) < left;
        wire signed [63:0] sum = 64'(x) + 64'(y);
        wire signed [63:0] product = 64'(x) * 64'(y);
        logic [31:0] z;
        always_comb begin
            unique case (op_r)
                OP_ADD:  z = sat32(sum);
                OP_MUL:  z = sat32(product);
                OP_RELU: z = x[31] ? 32'd0 : x;
                default: z = x;  // OP_PASS
            endcase
        end
        assign result[l*32 +: 32] = in_len ? z : 32'd0;
    end

    // ------------------------------------------------------------ pipeline

    logic                s1_valid, s1_last;
    logic [LANES*32-1:0] s1_data;
    logic                z_last;

    always_ff @(posedge clk) begin
        if (!rst_n) begin
            busy     <= 1'b0;
            feeding  <= 1'b0;
            done     <= 1'b0;
            op_r     <= OP_PASS;
            left     <= '0;
            s1_valid <= 1'b0;
            s1_last  <= 1'b0;
            s1_data  <= '0;
            z_valid  <= 1'b0;
            z_last   <= 1'b0;
            z_data   <= '0;
        end else begin
            done <= 1'b0;
            if (cmd_fire) begin
                op_r <= cmd_op;
                left <= (LEN_W+1)'(cmd_len);
                if (cmd_len == '0) begin
                    done <= 1'b1;
                end else begin
                    busy    <= 1'b1;
                    feeding <= 1'b1;
                end
            end
            if (fire) begin
                left <= last_beat ? '0 : left - LANES_W;
                if (last_beat) feeding <= 1'b0;
            end
            if (advance) begin
                s1_valid <= fire;
                s1_last  <= fire && last_beat;
                s1_data  <= result;
                z_valid  <= s1_valid;
                z_last   <= s1_last;
                z_data   <= s1_data;
            end
            if (z_valid && z_ready && z_last) begin
                busy <= 1'b0;
                done <= 1'b1;
            end
        end
    end
endmodule
